// Issue 18, "nothing unreadable" and the sandbox drill-in: `v` shows a dashboard row whole and wrapped (samples,
// rollouts' reasons, sandboxes that share a template), the drill-in on an agent follows its growing log (f, G, End,
// PgDn) and keeps it when the sandbox ends, and a flash does not outlive its time on a screen that redraws itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { KEYS } from '../helpers/ink.js';
import { waitFor } from '../helpers/wait.js';
import { setup, teardown, assertFits } from './dashboardSetup.js';
import { sampleLine } from './builders.js';
import { FLASH_MS } from '../../src/screens/App.js';

const SIZES = [
  { width: 120, height: 40 },
  { width: 80, height: 24 },
];

/** A Claude Code stream-json log of `steps` assistant turns, each a text and a Bash call (the real CLI's shape). */
function agentLog(steps: number): string {
  const lines = [`STEPS=${steps}`, '{"type":"system","subtype":"init"}'];
  for (let i = 1; i <= steps; i++) {
    lines.push(JSON.stringify({ type: 'assistant', message: { id: `m${i}`, content: [{ type: 'text', text: `thinking about step ${i}` }] } }));
    lines.push(JSON.stringify({ type: 'assistant', message: { id: `m${i}`, content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `pytest -k case_${i}` } }] } }));
  }
  return lines.join('\n');
}

/** The frame's text with its line breaks and wrapping indents as single spaces. */
const flat = (frame: string) => frame.replace(/\s+/g, ' ');

/** The run is read and its sandboxes listed (in a small terminal the panels are not all on screen). */
async function runShown(x: Awaited<ReturnType<typeof setup>>) {
  await waitFor(() => (x.services.monitor.store.getState().snapshot?.sandboxes?.agents ?? 0) === 1 && x.services.monitor.store.getState().snapshot?.feed.some((f) => f.instance === 'live__task-4') === true, { timeoutMs: 30_000, message: () => x.ui.frame() });
}

/** Tab to a panel by its title in the focus marker (`▸ Samples`). */
async function focusPanel(x: Awaited<ReturnType<typeof setup>>, title: string) {
  for (let i = 0; i < 8 && !x.ui.frame().includes(`▸ ${title}`); i++) await x.ui.press(KEYS.tab);
  await x.ui.waitForText(`▸ ${title}`);
}

for (const size of SIZES) {
  test(`v shows a sample row whole and wrapped, reason included (${size.width}×${size.height})`, async () => {
    const x = await setup(size);
    try {
      const reason = 'fail_to_pass_failed_after_the_harness_reran_tests_with_a_much_longer_reason_than_any_panel_row_has_room_for_end';
      await runShown(x);
      await appendFile(path.join(x.runDir, 'train.log'), sampleLine({ reward: 0, instance: 'a-very-long-organisation-name__a-repository-with-a-long-name-12345', f2p: '0/2', reason }, 30_000) + '\n');
      await focusPanel(x, 'Samples');
      await x.ui.waitForText(/✗ r4 a-very-long-organisation-name__a-/);
      // In the panel the row is cut; the reason's end is not on screen.
      assert.doesNotMatch(x.ui.frame(), /longer_reason/);
      await x.ui.press('v');
      await x.ui.waitForText('Sample · rollout 4');
      assert.match(x.ui.frame(), /instance a-very-long-organisation-name__a-repository-with-a-long-name-12345/);
      const f = x.ui.frame();
      // The reason whole, wrapped over lines: join the detail's rows and look for it unbroken.
      const joined = f.split('\n').map((l) => l.replace(/^│ ?|\s*│$/g, '').trim()).join('');
      assert.ok(joined.includes(reason), `the whole reason in:\n${f}`);
      assert.match(f, /reason:/);
      assert.match(f, /fail-to-pass 0\/2 · pass-to-pass 40\/40/);
      assertFits(f, size);
      await x.ui.press(KEYS.escape);
      await x.ui.waitForText('▸ Samples');
    } finally {
      await teardown(x);
    }
  });

  test(`v on a rollout lists its failure reasons whole; v on the charts shows the header and alerts whole (${size.width}×${size.height})`, async () => {
    const x = await setup(size);
    try {
      await runShown(x);
      await focusPanel(x, 'Rollouts');
      await x.ui.press('v');
      await x.ui.waitForText('failure reasons (most frequent first, reason:count):');
      assert.match(x.ui.frame(), /Rollout 3/);
      await x.ui.press(KEYS.escape);
      await focusPanel(x, 'Rollouts');
      // Charts: the run's header lines and every alert, not cut.
      await x.ui.press(KEYS.shiftTab);
      await x.ui.waitForText('panel: charts');
      await x.ui.press('v');
      await x.ui.waitForText('charts (last value · key):');
      const f = x.ui.frame();
      assert.match(f, /solved \d+\/\d+/, 'the header line whose end the dashboard cuts');
      assert.match(f, /rollout\/raw_reward_trajectory_mean/);
      assertFits(f, size);
    } finally {
      await teardown(x);
    }
  });
}

test('sandboxes that share a template are told apart by their id, and v shows one whole with a copyable agent-log command', async () => {
  const size = { width: 120, height: 40 };
  const x = await setup(size);
  try {
    await x.ui.waitForText('1 agent · 1 eval');
    // Both Dressage sandboxes use the same template: each row carries its own id's head.
    await x.ui.waitForText(/agent\s+swegym-getmoto-moto-1\s+sbx-agen/);
    await x.ui.waitForText(/eval\s+swegym-getmoto-moto-1\s+sbx-eval/);
    await focusPanel(x, 'Sandboxes');
    await x.ui.press('v');
    await x.ui.waitForText('id sbx-agent-1');
    const f = x.ui.frame();
    assert.match(f, /agent sandbox · template swegym-getmoto-moto-1/);
    assert.match(f, /trajectory_id bbs-1234/);
    assert.match(f, /swegym-console agent-log sbx-agent-1 --follow/);
    assert.match(f, /c copies the command/);
  } finally {
    await teardown(x);
  }
});

for (const size of SIZES) {
  test(`the sandbox drill-in opens at the newest step, follows the log, f/G/End/PgDn work, and the log stays when the sandbox ends (${size.width}×${size.height})`, async () => {
    let steps = 30;
    let ended = false;
    const x = await setup(size, { agentLog: () => agentLog(steps), gone: () => ended });
    try {
      await runShown(x);
      await focusPanel(x, 'Sandboxes');
      await x.ui.press(KEYS.enter);
      // Opens at the end: the newest step is on screen, the first is not.
      await x.ui.waitForText('pytest -k case_30');
      assert.doesNotMatch(x.ui.frame(), /thinking about step 1\b/);
      assert.match(x.ui.frame(), /f follow on/);
      // New steps arrive: the view follows them.
      steps = 40;
      await x.ui.waitForText('pytest -k case_40');
      // Up leaves the end (follow off): new steps do not move the view.
      await x.ui.press(KEYS.up);
      await x.ui.waitForText('f follow off');
      steps = 50;
      await x.ui.waitForText('steps so far 50');
      assert.doesNotMatch(x.ui.frame(), /case_50/);
      // G goes to the end and follows again.
      await x.ui.press('G');
      await x.ui.waitForText('pytest -k case_50');
      assert.match(x.ui.frame(), /f follow on/);
      // g to the top, PgDn pages down, End back to the end, f toggles.
      await x.ui.press('g');
      await x.ui.waitForText('thinking about step 1');
      const top = /lines (\d+)–(\d+) of (\d+)/.exec(x.ui.frame());
      assert.ok(top, x.ui.frame());
      await x.ui.press(KEYS.pageDown);
      await waitFor(() => Number(/lines (\d+)–/.exec(x.ui.frame())?.[1]) > 1, { timeoutMs: 5000, message: () => x.ui.frame() });
      assert.doesNotMatch(x.ui.frame(), /thinking about step 1\b/);
      await x.ui.press('\u001B[F'); // End
      await x.ui.waitForText('pytest -k case_50');
      await x.ui.press('f');
      await x.ui.waitForText('f follow off');
      await x.ui.press('f');
      await x.ui.waitForText('f follow on');
      assertFits(x.ui.frame(), size);
      // The sample ends: the sandbox is gone, no trajectory file yet. The log read while it ran stays.
      ended = true;
      await waitFor(() => flat(x.ui.frame()).includes('the log as last read'), { timeoutMs: 10_000, message: () => x.ui.frame() });
      const f = x.ui.frame();
      assert.match(f, /pytest -k case_50/);
      assert.match(flat(f), /not found \(killed or expired\)/);
      assertFits(f, size);
    } finally {
      await teardown(x);
    }
  });
}

test('a flash expires on the dashboard, which redraws only itself (the startup "still running" line must not outlive a crash)', async () => {
  const size = { width: 120, height: 40 };
  const x = await setup(size);
  try {
    await runShown(x);
    // As discoverRuns flashes it at start-up, nearly expired already.
    x.services.app.setState({ flash: { text: 'training run still running: demo-run (6 Train lists runs, 7 Dashboard)', tone: 'info', at: Date.now() - FLASH_MS + 300 } });
    await x.ui.waitForText('training run still running: demo-run');
    await waitFor(() => !x.ui.frame().includes('still running'), { timeoutMs: 5000, message: () => `the flash is still shown:\n${x.ui.frame()}` });
    assert.match(x.ui.frame(), /panel: charts/);
  } finally {
    await teardown(x);
  }
});

test('help on the dashboard lists every key it answers: the filter field and the pickers too (80×24, scrolling)', async () => {
  const size = { width: 80, height: 24 };
  const x = await setup(size);
  try {
    await runShown(x);
    await x.ui.press('?');
    await x.ui.waitForText('Dashboard keys');
    let seen = x.ui.frame();
    for (let i = 0; i < 12 && !/Quit question/.test(x.ui.frame()); i++) {
      await x.ui.press(KEYS.pageDown);
      seen += x.ui.frame();
    }
    for (const text of ['Filter field (/', 'keep the filter and leave the field', 'put back the earlier filter and leave', 'Metric and compare pickers (m, O', 'show the metric / compare with the run', 'close the picker', 'show the row whole', 'end of the drill-in (follows a live log)', 'Detail view (v / Enter on a row)', 'Quit question']) {
      assert.ok(seen.includes(text), `help lists "${text}"`);
    }
    await x.ui.press(KEYS.escape);
    // The picker's keys are its table: arrows move, letters (k, j too) are typed.
    await x.ui.press('m');
    await x.ui.waitForText(/metric: ▏/);
    for (const c of 'kj') await x.ui.press(c);
    await x.ui.waitForText(/metric: kj▏/);
    await x.ui.press(KEYS.backspace);
    await x.ui.waitForText(/metric: k▏/);
    await x.ui.press(KEYS.escape);
    await waitFor(() => !x.ui.frame().includes('metric: k▏'), { timeoutMs: 5000 });
  } finally {
    await teardown(x);
  }
});

test('a sandbox that left the newest list before Enter still finds its finished transcript (its trajectory id comes with the key press)', async () => {
  const x = await setup({ width: 120, height: 40 }, { gone: true });
  try {
    await runShown(x);
    const sess = path.join(x.runDir, 'traj_payload', 'demo-run', 'getmoto__moto-7', 'bbs-vanished');
    await mkdir(path.join(sess, 'samples'), { recursive: true });
    await writeFile(path.join(sess, 'session.json'), JSON.stringify({ success: true, data: [{ messages: [{ role: 'user', content: 'Fix moto 7' }] }] }));
    await writeFile(path.join(sess, 'samples', '0.json'), JSON.stringify({ metadata: { execute_cmds: [] } }));
    // Not in the provider's list any more: only the row the dashboard drew knows its trajectory id.
    await x.services.monitor.followSandbox('sbx-vanished', 'bbs-vanished');
    await waitFor(() => x.services.monitor.store.getState().snapshot?.sandboxStream?.transcript?.entry.session === 'bbs-vanished', { timeoutMs: 30_000, message: () => JSON.stringify(x.services.monitor.store.getState().snapshot?.sandboxStream) });
  } finally {
    await teardown(x);
  }
});

test('a drill-in on an agent that ended before its log was read says so, with what its row last showed', async () => {
  const x = await setup({ width: 120, height: 40 }, { gone: true });
  try {
    await runShown(x);
    await focusPanel(x, 'Sandboxes');
    await x.ui.press(KEYS.enter);
    await waitFor(() => flat(x.ui.frame()).includes('The sandbox ended before its log was read. Its row last showed:'), { timeoutMs: 30_000, message: () => x.ui.frame() });
    assert.match(flat(x.ui.frame()), /Sandbox sbx-agent-1 · swegym-getmoto-moto-1 · bbs-1234/);
  } finally {
    await teardown(x);
  }
});
