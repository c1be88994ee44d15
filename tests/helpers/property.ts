// Loaded before every test file by scripts/test.mjs (--import): property-based tests draw the same cases on every run,
// so a failure reproduces and the suite's verdict does not depend on the draw. SWEGYM_PROPERTY_SEED=N picks another
// fixed draw; SWEGYM_PROPERTY_SEED=random draws anew each run (fast-check prints the seed of a failure).
import fc from 'fast-check';

const raw = process.env.SWEGYM_PROPERTY_SEED;
if (raw !== 'random') fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: raw && /^-?\d+$/.test(raw) ? Number(raw) : 20261201 });
