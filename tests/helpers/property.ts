// fast-check for property-based tests, with a fixed draw: every test file imports `fc` from here (not from
// fast-check), so the same cases are drawn on every run, a failure reproduces and the suite's verdict does not depend
// on the draw. SWEGYM_PROPERTY_SEED=N picks another fixed draw; SWEGYM_PROPERTY_SEED=random draws anew each run
// (fast-check prints the seed of a failure). Only the files that use it load fast-check (it costs every process
// ~0.13 s of CPU to load: it was once imported before every test file).
import fc from 'fast-check';

const raw = process.env.SWEGYM_PROPERTY_SEED;
if (raw !== 'random') fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: raw && /^-?\d+$/.test(raw) ? Number(raw) : 20261201 });

export default fc;
