// Injected at build time would be nicer, but reading package.json keeps dev (tsx) and bundle identical.
export const VERSION = '0.1.0';
