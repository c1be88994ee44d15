// A node:test reporter that writes one JSON document at the end: the totals, skipped tests counted by reason (a file
// that cannot run here says why once, in its skip reason), the time each file took, and each failure's name, file
// and first lines of error. scripts/test.mjs prints them last, where a log cut to its tail (CI's) still shows them.
export default async function* summaryReporter(source) {
  const totals = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  const skips = {};
  const files = {};
  const failures = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const data = event.data;
    if (data.file && data.nesting === 0) files[data.file] = (files[data.file] ?? 0) + (data.details?.duration_ms ?? 0);
    // Suites report too; only leaf tests count (a suite's own result carries its children's).
    if (data.details?.type === 'suite') {
      if (data.skip !== undefined && data.skip !== false) {
        // A skipped suite never reports its children: count it once under its reason.
        totals.skipped++;
        const reason = typeof data.skip === 'string' && data.skip ? data.skip : 'no reason given';
        skips[reason] = (skips[reason] ?? 0) + 1;
      }
      continue;
    }
    if (data.skip !== undefined && data.skip !== false) {
      totals.skipped++;
      const reason = typeof data.skip === 'string' && data.skip ? data.skip : 'no reason given';
      skips[reason] = (skips[reason] ?? 0) + 1;
    } else if (data.todo !== undefined && data.todo !== false) totals.todo++;
    else if (event.type === 'test:pass') totals.passed++;
    else {
      totals.failed++;
      failures.push({ name: data.name, file: data.file ?? '', error: errorHead(data.details?.error) });
    }
  }
  yield JSON.stringify({ totals, skips, files, failures });
}

/** The first lines of a failure's error: the assertion's message, or the cause node:test wraps it in. */
function errorHead(error) {
  if (!error) return '';
  const inner = error.cause ?? error;
  const text = String(inner?.message ?? inner);
  return text.split('\n').slice(0, 8).join('\n').slice(0, 1200);
}
