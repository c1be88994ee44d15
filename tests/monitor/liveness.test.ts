// Whether a run is alive: the state derivation from the log, the writer (registry / simulator) and Ray's job.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cadenceOf, deriveLiveness, livenessJson, livenessLabel, stallThreshold, LIVENESS_DEFAULTS, type LivenessInput } from '../../src/services/monitor/liveness.js';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const MIN = 60_000;

/** Progress lines every `gapMs` up to `endAgoMs` before now. */
function progress(n: number, gapMs: number, endAgoMs = 0): number[] {
  return Array.from({ length: n }, (_, i) => NOW - endAgoMs - (n - 1 - i) * gapMs);
}

const base = (x: Partial<LivenessInput>): LivenessInput => ({ now: NOW, phase: 'generating', progressTimes: progress(50, 20_000), lastLineAt: NOW - 5_000, ...x });

test('a killed writer (no new lines, registry pid dead, no exit code) is crashed at once, not generating', () => {
  // The log is only 90 s old: by the log alone it would still look alive.
  const l = deriveLiveness(base({ lastLineAt: NOW - 90_000, writer: { source: 'registry', alive: false, pid: 4242 } }));
  assert.equal(l.state, 'crashed');
  assert.match(l.why, /pid 4242.*gone.*no exit code/);
  assert.equal(l.lastLineAgoMs, 90_000);
  // The same writer alive: running.
  assert.equal(deriveLiveness(base({ lastLineAt: NOW - 90_000, writer: { source: 'registry', alive: true } })).state, 'running');
  // The simulator's live.json went stale: the same answer.
  assert.equal(deriveLiveness(base({ writer: { source: 'simulator', alive: false } })).state, 'crashed');
});

test('a finished static log is finished (log end, exit file, or Ray SUCCEEDED), however old', () => {
  const old = NOW - 3 * 24 * 60 * MIN;
  assert.equal(deriveLiveness(base({ phase: 'finished', lastLineAt: old })).state, 'finished');
  const byExit = deriveLiveness(base({ lastLineAt: old, writer: { source: 'registry', alive: false, exitCode: 0 } }));
  assert.deepEqual([byExit.state, byExit.exitCode], ['finished', 0]);
  assert.equal(deriveLiveness(base({ rayJob: { id: 'raysubmit_a', status: 'SUCCEEDED', exitCode: 0 } })).state, 'finished');
  // Neither the log's end nor a writer: a log silent for days is stalled, never running.
  assert.equal(deriveLiveness(base({ lastLineAt: old })).state, 'stalled');
});

test('exited with a code: the exit file, the launcher exit line or Ray\'s driver_exit_code; labelled with it', () => {
  const a = deriveLiveness(base({ writer: { source: 'registry', alive: false, exitCode: 137 } }));
  assert.deepEqual([a.state, a.exitCode, livenessLabel(a)], ['exited', 137, 'exited (137)']);
  assert.match(a.why, /code 137 \(the run registry/);
  const b = deriveLiveness(base({ logExitCode: 2 }));
  assert.deepEqual([b.state, b.exitCode], ['exited', 2]);
  const c = deriveLiveness(base({ rayJob: { id: 'raysubmit_b', status: 'FAILED', exitCode: 1 } }));
  assert.deepEqual([c.state, c.exitCode], ['exited', 1]);
  // FAILED without an exit code (the driver never started): crashed, with Ray's message.
  const d = deriveLiveness(base({ rayJob: { id: 'raysubmit_c', status: 'FAILED', message: 'runtime env setup failed' } }));
  assert.equal(d.state, 'crashed');
  assert.match(d.why, /runtime env setup failed/);
  // Stopped by the operator: exited, not crashed.
  assert.equal(livenessLabel(deriveLiveness(base({ writer: { source: 'registry', alive: false, stopped: true } }))), 'exited (stopped)');
  // A running Ray job says nothing about the end; a RUNNING job with a fresh log is running.
  assert.equal(deriveLiveness(base({ rayJob: { id: 'raysubmit_d', status: 'RUNNING' } })).state, 'running');
});

test('stalled is judged against the run\'s own cadence, within minutes, not after a fixed 45 min', () => {
  // Samples every 20 s, and one training step of 60 s in the window: the longest gap is 60 s → stall after 3 min.
  const times = [...progress(40, 20_000, 5 * MIN), NOW - 5 * MIN + 60_000];
  assert.equal(cadenceOf(times), 60_000);
  assert.equal(stallThreshold(60_000, 'generating'), 3 * MIN);
  const quiet = (agoMs: number) => deriveLiveness(base({ progressTimes: times, lastLineAt: NOW - agoMs, writer: { source: 'registry', alive: true } }));
  assert.equal(quiet(2 * MIN).state, 'running');
  const s = quiet(4 * MIN);
  assert.equal(s.state, 'stalled');
  assert.match(s.why, /no new line for 4 min \(stall after 3 min, 3× the longest recent gap 60 s\); the launcher is still running/);
  // A slow run (rollout gaps of 8 min) is not stalled after 10 min, but is after 25.
  const slow = progress(20, 8 * MIN, 0);
  assert.equal(deriveLiveness(base({ progressTimes: slow, lastLineAt: NOW - 10 * MIN })).state, 'running');
  assert.equal(deriveLiveness(base({ progressTimes: slow, lastLineAt: NOW - 25 * MIN })).state, 'stalled');
  // Bounded: never before 3 min, never after 30 min; without history 15 min; while starting 20 min.
  assert.equal(stallThreshold(1000, 'training'), LIVENESS_DEFAULTS.minStallMs);
  assert.equal(stallThreshold(60 * MIN, 'training'), LIVENESS_DEFAULTS.maxStallMs);
  assert.equal(stallThreshold(undefined, 'generating'), 15 * MIN);
  assert.equal(stallThreshold(undefined, 'starting'), 20 * MIN);
  assert.equal(cadenceOf(progress(5, 20_000)), undefined, 'too few lines to trust a cadence');
});

test('the --once --json field: snake_case, seconds, the label', () => {
  const j = livenessJson(deriveLiveness(base({ lastLineAt: NOW - 12_400, writer: { source: 'registry', alive: false, exitCode: 1 } })));
  assert.deepEqual(Object.keys(j), ['state', 'label', 'exit_code', 'last_line_ago_s', 'stall_after_s', 'cadence_s', 'why']);
  assert.deepEqual([j.state, j.label, j.exit_code, j.last_line_ago_s, j.cadence_s], ['exited', 'exited (1)', 1, 12, 20]);
});

test('a run that ended raises no proxy alert (its proxy is expected to be gone); a running one does', async () => {
  const { computeAlerts } = await import('../../src/services/monitor/alerts.js');
  const { RunModel } = await import('../../src/services/monitor/runModel.js');
  const m = new RunModel({ clock: () => 0 });
  const proxy = { consecutiveFailures: 5, last: { ok: false, at: 0, error: 'ECONNREFUSED' } };
  const ids = (state: 'running' | 'finished' | 'crashed' | 'exited') => computeAlerts({ model: m, now: 0, proxy, live: true, liveness: { state, stallAfterMs: 60_000, why: 'test', ...(state === 'exited' ? { exitCode: 0 } : {}) } }).map((a) => a.id);
  assert.ok(ids('running').includes('proxy-down'));
  for (const s of ['finished', 'crashed', 'exited'] as const) assert.ok(!ids(s).includes('proxy-down'), s);
});
