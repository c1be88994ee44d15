// A test file's tier is the last word of its name before `.test.ts(x)` (docs/TESTING.md):
//   shipped   the built binary (bin/swegym-console), headless
//   tmux      the built binary in a real terminal
//   sandbox   real bubblewrap sandboxes (the local provider)
//   upstream  upstream's own code (../shared/upstream) run side by side with ours
//   faults    the fault battery: the built binary against the fakes behind the fault proxy (docs/FAULTS.md)
// No tier word: the fast tier (pure logic, services against in-process fakes, screens in ink-testing-library).
// scripts/test.mjs --fast runs only that tier; tests/architecture/testTiers.test.ts holds the names to what files use.
export const SLOW_TIERS = ['shipped', 'tmux', 'sandbox', 'upstream', 'faults'];

/** The tier word of a test file's name, or undefined for the fast tier. */
export function tierOf(file) {
  const m = /\.([A-Za-z]+)\.test\.tsx?$/.exec(file);
  return m && SLOW_TIERS.includes(m[1]) ? m[1] : undefined;
}

export const isSlowTier = (file) => tierOf(file) !== undefined;
