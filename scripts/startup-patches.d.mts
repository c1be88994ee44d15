export declare function patchStringWidth(source: string, file?: string): string;
export declare const YOGA_FETCH_TEST: string;
export declare function patchYogaWithoutFetch(source: string, file?: string): string;
export declare function patchTerminalSize(source: string, file?: string): string;
export declare function patchYogaIndexFromGlobal(source: string, file?: string): string;
export declare function patchInkReconcilerWithoutTopLevelAwait(source: string, file?: string): string;
export declare function patchInkRenderThrottle(source: string, throttleModule: string, file?: string): string;
export declare function patchInkLineUpdate(source: string, lineUpdateModule: string, file?: string): string;
