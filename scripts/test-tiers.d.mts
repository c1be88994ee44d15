export declare const SLOW_TIERS: readonly string[];
export declare function tierOf(file: string): string | undefined;
export declare const isSlowTier: (file: string) => boolean;
