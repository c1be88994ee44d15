// Shipped tier (the built binary), in a real browser: `report RUN -o run.html` of the built console on a simulated run, opened by
// headless Chromium. The page's charts drew every series (uPlot's drawSeries hook, written into #report-drawn by
// the page), and its numbers are those of `monitor --once --json` of the same run. A screenshot is kept under
// test-artifacts/report/ (CI keeps the folder). Skipped, saying so, without Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { removeDir, tempDir } from '../helpers/workspace.js';
import { explain, runShipped } from '../helpers/shipped.js';
import { artifactsDir, chromiumMissing, dumpDom, screenshot } from '../helpers/chromium.js';

interface Doc {
  run: { phase: string };
  steps: { step: number; metrics: Record<string, unknown> }[];
  rollouts: { rollout: number; metrics: Record<string, unknown>; samples: { total: number; reward_one: number; by_reason: Record<string, number> } }[];
  in_progress: { rollout: number; samples: { total: number } };
  samples: { total: number; reward_one: number; raw_one: number; integrity_violations: number; by_reason: Record<string, number> };
}

interface Drawn {
  title: string;
  series: number;
  drawn: number;
  points: number[];
}

const SECRET = 'e2b_fake_report_key_for_tests_9f3a7c21';
const WANDB_SECRET = 'fake-wandb-key-for-report-tests-7d41e0b2';

function statValue(dom: string, id: string): number {
  const m = new RegExp(`id="${id}" data-value="([^"]*)"`).exec(dom);
  assert.ok(m, `#${id} is on the page`);
  return Number(m[1]);
}

test('shipped: report RUN -o run.html draws every chart in Chromium with the numbers of monitor --once --json, secrets masked', { timeout: 180_000, skip: chromiumMissing() }, async () => {
  const ws = await tempDir('swegym-shipped-report-');
  try {
    const sim = path.join(ws, 'sim');
    const made = await runShipped(['simulate', sim, '--rollouts', '6', '--prompts', '4', '--json']);
    assert.equal(made.code, 0, explain(made));
    // A registry entry as `train launch` writes it, its launch settings holding secrets (as an older console could
    // have stored them unmasked): the report masks them by name and by value.
    const name = 'swegym-report-20261201-000000';
    const entry = path.join(ws, '.swegym-console', 'runs', name);
    await mkdir(entry, { recursive: true });
    const effective = { E2B_API_KEY: SECRET, WANDB_API_KEY: WANDB_SECRET, WANDB_PROJECT: 'swegym', SWEGYM_CONSOLE_AGENT_MINUTES: '10', NUM_ROLLOUT: '6', NOTE: `key is ${SECRET}` };
    await writeFile(
      path.join(entry, 'run.json'),
      JSON.stringify({
        version: 1,
        name,
        runName: 'swegym-qwen3.5-4b-claude-code-grpo-sync',
        host: 'elsewhere',
        createdAt: '2026-12-01T00:00:00.000Z',
        command: { argv: ['bash', 'launch.sh'], cwd: ws },
        logFile: path.join(sim, 'run.log'),
        exitFile: path.join(entry, 'exit.json'),
        outputsLogDir: sim,
        checkpointDir: path.join(ws, 'ckpt'),
        config: { explicit: { SWEGYM_CONSOLE_AGENT_MINUTES: '10' }, effective, sources: { SWEGYM_CONSOLE_AGENT_MINUTES: 'set' } },
        expectedEffectiveLines: [],
        status: 'running',
      }),
    );
    const env = { E2B_API_KEY: SECRET };
    const out = path.join(ws, 'run.html');
    const r = await runShipped(['-w', ws, 'report', name, '-o', out], { env });
    assert.equal(r.code, 0, explain(r));
    assert.match(r.out, /wrote .*run\.html/);
    const once = await runShipped(['-w', ws, 'monitor', name, '--once', '--json'], { env });
    assert.equal(once.code, 0, explain(once));
    const doc = JSON.parse(once.out) as Doc;
    const onceText = await runShipped(['-w', ws, 'monitor', name, '--once'], { env });
    assert.equal(onceText.code, 0, explain(onceText));

    const html = await readFile(out, 'utf8');
    // Self-contained: no element loads anything; uPlot is inlined.
    assert.doesNotMatch(html, /<(script|link|img|iframe)\b[^>]*\b(src|href)=/i);
    assert.match(html, /uPlot \(v1\.6\.32\)|uPlot 1\.6\.32/);
    assert.ok(!html.includes(SECRET) && !html.includes(WANDB_SECRET), 'no secret in the file');
    assert.ok(!html.includes(SECRET.slice(0, 20)), 'not even in part');

    const dom = await dumpDom(out);
    const drawnText = /<pre id="report-drawn"[^>]*>([^<]*)<\/pre>/.exec(dom)?.[1];
    assert.ok(drawnText, 'the page wrote what it drew');
    const drawn = JSON.parse(drawnText.replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as Record<string, Drawn>;

    // Every chart drew every series.
    for (const [id, d] of Object.entries(drawn)) assert.equal(d.drawn, d.series, `${id} (${d.title}) drew ${d.drawn} of ${d.series} series`);
    const curves = Object.entries(drawn).filter(([id]) => id.startsWith('chart-curve-'));
    assert.equal(curves.length, 7, 'the dashboard overview charts');
    // Each curve has as many points as the document has records carrying the metric.
    const data = JSON.parse(/<script type="application\/json" id="report-data">([^]*?)<\/script>/.exec(html)?.[1] ?? 'null') as { curves: { key: string; source: 'step' | 'rollout'; y: (number | null)[] }[] };
    data.curves.forEach((c, i) => {
      const recs = c.source === 'step' ? doc.steps : doc.rollouts;
      const values = recs.map((x) => x.metrics[c.key]).filter((v) => typeof v === 'number');
      assert.ok(values.length > 0, c.key);
      assert.deepEqual(c.y, values, `${c.key} equals the document's values`);
      assert.equal(drawn[`chart-curve-${i}`]?.points[0], values.length, `${c.key}: raw points drawn`);
    });
    // Failure reasons: one series per reason the rollouts name (the resolved '' bucket aside) and the aborted one.
    const reasons = new Set(doc.rollouts.flatMap((x) => Object.keys(x.samples.by_reason)).filter((k) => k !== ''));
    assert.equal(drawn['chart-reasons']?.series, reasons.size + 1);
    assert.deepEqual(drawn['chart-groups']?.points, [doc.rollouts.length, doc.rollouts.length, doc.rollouts.length]);

    // The numbers on the page.
    assert.equal(statValue(dom, 'stat-rollouts'), doc.rollouts.length);
    assert.equal(statValue(dom, 'stat-steps'), doc.steps.length);
    assert.equal(statValue(dom, 'stat-samples'), doc.samples.total);
    assert.equal(statValue(dom, 'stat-reward-one'), doc.samples.reward_one);
    assert.equal(statValue(dom, 'stat-raw-one'), doc.samples.raw_one);
    assert.equal(statValue(dom, 'stat-integrity'), doc.samples.integrity_violations);
    assert.equal(statValue(dom, 'stat-in-progress'), doc.in_progress.samples.total);
    assert.match(dom, new RegExp(`id="report-phase">${doc.run.phase}<`));
    const tasksLine = /tasks: (\d+) seen/.exec(onceText.out);
    assert.ok(tasksLine, onceText.out);
    assert.match(dom, new RegExp(`id="tasks-seen">${tasksLine[1]}<`), 'tasks seen as monitor --once counts them');
    for (const [reason, n] of Object.entries(doc.samples.by_reason)) {
      assert.ok(dom.includes(`<td>${reason || '(resolved)'}</td><td>${n.toLocaleString('en-US')}</td>`), `reason ${reason || '(resolved)'} = ${n}`);
    }
    // E2B cost: the run's own agent minutes (10), the defaults' eval minutes (6) and price (0.10).
    const cost = statValue(dom, 'stat-cost');
    const graded = doc.samples.total;
    assert.ok(cost >= Math.round(((graded * 22) / 60) * 0.1 * 100) / 100 && cost <= ((graded * 1.05 * 22) / 60) * 0.1, `cost ${cost} for ${graded} graded samples`);
    assert.match(dom, /10 agent min \+ 2 × 6 eval min/);
    assert.match(dom, /<td>E2B_API_KEY<\/td><td>\*\*\*\*<\/td>/);
    assert.match(dom, /<td>NOTE<\/td><td>key is \*\*\*\*<\/td>/);
    assert.match(dom, /<td>WANDB_PROJECT<\/td><td>swegym<\/td>/);

    const png = artifactsDir('report', 'run.png');
    await mkdir(path.dirname(png), { recursive: true });
    await screenshot(out, png);
    const head = (await readFile(png)).subarray(0, 8);
    assert.deepEqual([...head], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    assert.ok((await stat(png)).size > 20_000, 'a screenshot with something drawn');
  } finally {
    await removeDir(ws);
  }
});
