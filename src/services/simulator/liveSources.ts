// The live sources of a simulated run. A real run is watched through more than its log (recipe reference §7, live
// sources): E2B lists the agent and evaluation sandboxes, each agent sandbox holds Claude Code's stream-json log and
// one tool_summary file per step, the Dressage proxy answers /health with active_sessions, and nvidia-smi shows the
// GPUs. A live simulation has none of these, so the simulator writes what it knows (phase, live sandboxes, steps)
// to `live.json` about once a second, and the monitor turns that into the same shapes the real sources give: a
// sandbox list, a stream-json log parsed by the real parser, a proxy health document and nvidia-smi CSV parsed by
// the real GPU parser. Everything it shows stays under the dashboard's SIMULATED RUN label.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Rng } from './rng.js';
import { SIM_LIVE_NAME } from './names.js';
import { toRows, parseAgentProgress, type SandboxAgentProgress, type SandboxSnapshot } from '../monitor/sandboxes.js';
import { GPU_FIELDS } from '../monitor/gpu.js';
import type { ProxyHealth } from '../monitor/proxy.js';
import type { SandboxInfo } from '../sandbox/types.js';
import { imageForInstance } from '../dataset/imageName.js';
import { templateNameForImage } from '../templates/naming.js';

/** A live.json older than this means the simulator stopped writing (its process ended or hangs). */
export const SIM_LIVE_STALE_MS = 10_000;

export interface SimLiveSandbox {
  /** Sandbox id in E2B's style (20 lower-case letters and digits). */
  id: string;
  kind: 'agent' | 'eval';
  /** Dressage's metadata trajectory_id: bbs-<uuid> (agent) or swegym-eval-<hex> (evaluation). */
  trajectoryId: string;
  instanceId: string;
  repo: string;
  /** Template alias, as the console names it for the task's image. */
  template: string;
  /** Epoch ms (wall clock of the writer, minus the simulated age). */
  startedAt: number;
  /** Agent: LLM steps so far. */
  steps: number;
  /** Agent: the steps this session takes in all (its log's history does not change as it grows). */
  plannedSteps: number;
  /** Agent: Claude Code's turn has ended (the evaluation is running or done). */
  done: boolean;
}

export interface SimLiveState {
  simulated: true;
  /** Epoch ms when written. */
  at: number;
  phase: 'starting' | 'generating' | 'training' | 'finished' | 'stopped';
  rollout: number;
  samplesDone: number;
  samplesPerRollout: number;
  /** GPUs of the node the dashboard runs on (nvidia-smi shows one node). */
  gpusPerNode: number;
  /** Nodes of the simulated Ray cluster (absent in live.json files of older simulators: one). */
  nodes?: number;
  /** Simulated seconds per wall-clock second: a reader scales its polling of the stand-in sources by it. */
  speed: number;
  sandboxes: SimLiveSandbox[];
}

export function liveStateFile(dir: string): string {
  return path.join(dir, SIM_LIVE_NAME);
}

/** live.json of a simulated run dir; undefined when absent or not the simulator's. */
export async function readSimLiveState(dir: string): Promise<SimLiveState | undefined> {
  try {
    const v = JSON.parse(await readFile(liveStateFile(dir), 'utf8')) as Partial<SimLiveState> | null;
    if (v?.simulated !== true || typeof v.at !== 'number' || !Array.isArray(v.sandboxes)) return undefined;
    return v as SimLiveState;
  } catch {
    return undefined;
  }
}

/** Whether the writer is still at work (a fresh file from a run that is not over). */
export function isLiveStateCurrent(state: SimLiveState, now: number): boolean {
  return state.phase !== 'finished' && state.phase !== 'stopped' && now - state.at <= SIM_LIVE_STALE_MS;
}

function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

const ID_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A stable E2B-style sandbox id for a session. */
export function simulatedSandboxId(trajectoryId: string): string {
  const rng = new Rng(hash32(trajectoryId));
  let id = '';
  for (let i = 0; i < 20; i++) id += ID_CHARS[rng.int(ID_CHARS.length)];
  return id;
}

const templateCache = new Map<string, string>();

/** The template alias the console gives the task's image (what E2B would report for its sandboxes). */
export function simulatedTemplate(instanceId: string, repo: string): string {
  let t = templateCache.get(instanceId);
  if (!t) {
    try {
      t = templateNameForImage(imageForInstance(instanceId, repo));
    } catch {
      t = 'swegym-unknown';
    }
    if (templateCache.size > 4096) templateCache.clear();
    templateCache.set(instanceId, t);
  }
  return t;
}

// ---- the sandboxes panel -------------------------------------------------------------------------

/** What E2B's list would give for the run's sandboxes, through the same row builder. */
export function simulatedSandboxSnapshot(state: SimLiveState | undefined, now: number, limit: number): SandboxSnapshot {
  // Ended (finished, or stopped on purpose, which writes a last live.json): no sandboxes. Stale: the writer died.
  if (!state || state.phase === 'finished' || state.phase === 'stopped') return { ok: true, at: now, rows: [], agents: 0, evals: 0, limit };
  if (!isLiveStateCurrent(state, now)) return { ok: false, at: now, rows: [], agents: 0, evals: 0, limit, error: 'the simulator stopped writing live.json (its process ended?)' };
  const infos: SandboxInfo[] = state.sandboxes.map((s) => ({
    id: s.id,
    template: s.template,
    metadata: { trajectory_id: s.trajectoryId, paddock_mode: 'blackbox' },
    startedAt: new Date(s.startedAt).toISOString(),
    state: 'running',
    provider: 'e2b',
  }));
  const rows = toRows(infos, now);
  return { ok: true, at: now, rows, agents: rows.filter((r) => r.kind === 'agent').length, evals: rows.filter((r) => r.kind === 'eval').length, limit };
}

// ---- inside an agent sandbox: Claude Code's stream-json log ---------------------------------------

interface ToolStep {
  name: string;
  input: Record<string, unknown>;
  thought: string;
  result: string;
  isError: boolean;
}

function packageOf(repo: string): string {
  const name = repo.split('/').pop() ?? 'pkg';
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '_');
}

/** One agent step, the same for a given session and step number whatever the step count now is. */
function toolStep(trajectoryId: string, repo: string, step: number, total: number): ToolStep {
  const rng = new Rng((hash32(trajectoryId) ^ Math.imul(step + 1, 0x9e3779b1)) >>> 0);
  const pkg = packageOf(repo);
  const module = rng.pick(['core', 'utils', 'models', 'io', 'api', 'config', 'parser', 'backends']);
  const file = `${pkg}/${module}.py`;
  const line = rng.range(40, 1400);
  const fraction = total > 0 ? step / total : 0;
  if (step === 1) return { name: 'Bash', input: { command: `ls && git log --oneline -3` }, thought: 'Let me look at the repository first.', result: `README.md\n${pkg}\nsetup.py\ntests\n${rng.hex(7)} Merge pull request #${rng.range(1000, 9999)}`, isError: false };
  if (fraction < 0.35) {
    const fn = rng.pick(['parse', 'validate', 'convert', 'resolve', 'load', 'merge', 'normalize', 'from_dict']);
    return rng.chance(0.5)
      ? { name: 'Grep', input: { pattern: `def ${fn}`, path: pkg }, thought: `Where is ${fn} defined?`, result: `${file}:${line}:    def ${fn}(self, value):`, isError: false }
      : { name: 'Read', input: { file_path: `/testbed/${file}` }, thought: `Reading ${file} around ${fn}.`, result: `${line}\t    def ${fn}(self, value):\n${line + 1}\t        if value is None:`, isError: false };
  }
  if (fraction < 0.5) {
    return rng.chance(0.5)
      ? { name: 'Write', input: { file_path: '/testbed/reproduce_issue.py' }, thought: 'Writing a short script that reproduces the issue.', result: 'File created successfully at: /testbed/reproduce_issue.py', isError: false }
      : { name: 'Bash', input: { command: 'python reproduce_issue.py' }, thought: 'Running the reproduction.', result: `Traceback (most recent call last):\n  File "/testbed/${file}", line ${line}\nTypeError: unsupported operand type(s)`, isError: true };
  }
  if (fraction < 0.75) return { name: 'Edit', input: { file_path: `/testbed/${file}`, old_string: '        if value is None:', new_string: '        if value is None or value == "":' }, thought: `Fixing the check in ${file}.`, result: `The file /testbed/${file} has been updated.`, isError: false };
  const passed = rng.range(4, 60);
  const failed = rng.chance(0.3) ? rng.range(1, 3) : 0;
  return {
    name: 'Bash',
    input: { command: `python -m pytest tests/test_${module}.py -x -q` },
    thought: failed ? 'Running the tests again after the change.' : 'Running the related tests.',
    result: failed ? `FAILED tests/test_${module}.py::test_${module}_roundtrip\n${failed} failed, ${passed} passed in ${rng.uniform(1, 30).toFixed(2)}s` : `${passed} passed in ${rng.uniform(1, 30).toFixed(2)}s`,
    isError: failed > 0,
  };
}

/** A reply's input tokens: the prompt grows with every step. */
const stepInputTokens = (step: number) => 6000 + 900 * step;

/**
 * Claude Code's `claude_code.stdout.log` so far: init, one assistant tool call and its result per step, then the
 * result event once the turn is over. From `fromStep` on only (the log's tail), when given.
 */
export function simulatedAgentLog(s: Pick<SimLiveSandbox, 'trajectoryId' | 'repo' | 'steps' | 'plannedSteps' | 'done'>, fromStep = 1): string {
  const sessionId = s.trajectoryId.replace(/^bbs-/, '');
  const lines: string[] = [];
  if (fromStep <= 1) lines.push(JSON.stringify({ type: 'system', subtype: 'init', cwd: '/testbed', session_id: sessionId, model: 'proxy-model', permissionMode: 'acceptEdits', tools: ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'LS', 'TodoWrite'] }));
  for (let step = Math.max(1, fromStep); step <= s.steps; step++) {
    const t = toolStep(s.trajectoryId, s.repo, step, Math.max(1, s.plannedSteps, s.steps));
    const rng = new Rng(hash32(`${s.trajectoryId}:${step}`));
    const id = `toolu_${rng.hex(24)}`;
    // As the real CLI prints a reply (tests/fixtures/claude-code): one event per content block, sharing the
    // message id and its usage, whose output_tokens is the stream's placeholder.
    const message = { id: `msg_${rng.hex(24)}`, type: 'message', role: 'assistant', model: 'proxy-model', stop_reason: null, usage: { input_tokens: stepInputTokens(step), output_tokens: 1 } };
    lines.push(JSON.stringify({ type: 'assistant', message: { ...message, content: [{ type: 'text', text: t.thought }] }, parent_tool_use_id: null, session_id: sessionId }));
    lines.push(JSON.stringify({ type: 'assistant', message: { ...message, content: [{ type: 'tool_use', id, name: t.name, input: t.input }] }, parent_tool_use_id: null, session_id: sessionId }));
    lines.push(JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: t.result, is_error: t.isError }] }, parent_tool_use_id: null, session_id: sessionId }));
  }
  if (s.done) {
    // The final reply (one more model turn; num_turns counts the replies + 1, as the CLI does) and the totals.
    let input = 0;
    for (let step = 1; step <= s.steps + 1; step++) input += stepInputTokens(step);
    const text = 'The fix is in place and the related tests pass.';
    lines.push(JSON.stringify({ type: 'assistant', message: { id: `msg_${new Rng(hash32(`${s.trajectoryId}:final`)).hex(24)}`, type: 'message', role: 'assistant', model: 'proxy-model', stop_reason: null, usage: { input_tokens: stepInputTokens(s.steps + 1), output_tokens: 1 }, content: [{ type: 'text', text }] }, parent_tool_use_id: null, session_id: sessionId }));
    lines.push(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, num_turns: s.steps + 2, result: text, api_error_status: null, permission_denials: [], usage: { input_tokens: input, output_tokens: 120 * (s.steps + 1) }, session_id: sessionId }));
  }
  return lines.join('\n') + '\n';
}

/** What `readAgentProgress` reads from an agent sandbox, parsed by the same parser. */
export function simulatedAgentProgress(s: SimLiveSandbox | undefined, tailBytes = 65536): SandboxAgentProgress {
  if (!s) return { steps: undefined, lastTool: undefined, events: [], error: 'sandbox not running (the simulated sample finished)' };
  if (s.kind !== 'agent') return { steps: 0, lastTool: undefined, events: [], error: 'no Blackbox Server runtime yet' };
  const log = simulatedAgentLog(s);
  return parseAgentProgress(`STEPS=${s.steps}\n${log.length > tailBytes ? log.slice(-tailBytes) : log}`);
}

/** Steps and the last tool call of an agent sandbox (the panel's row), from the last step of its log only. */
export function simulatedAgentSummary(s: SimLiveSandbox): { steps: number; lastTool: string | undefined } {
  const p = parseAgentProgress(`STEPS=${s.steps}\n\n${simulatedAgentLog(s, s.steps)}`);
  return { steps: s.steps, lastTool: p.lastTool };
}

// ---- the Dressage proxy and the GPUs ---------------------------------------------------------------

/** GET /health of the proxy: active_sessions = agent sessions in flight; paused while the policy trains. */
export function simulatedProxyHealth(state: SimLiveState | undefined, now: number): ProxyHealth {
  if (!state) return { ok: false, at: now, error: 'simulated run: no live.json yet' };
  if (!isLiveStateCurrent(state, now)) return { ok: false, at: now, error: state.phase === 'finished' ? 'simulated run finished' : 'simulator stopped' };
  const active = state.sandboxes.filter((s) => s.kind === 'agent' && !s.done).length;
  return { ok: true, at: now, status: 'ok', activeSessions: active, paused: state.phase === 'training' };
}

// The node's GPUs as an H200 reports them (tests/fixtures/nvidia-smi: 143771 MiB, 700 W limit, 3201 MHz memory clock).
const H200 = { name: 'NVIDIA H200', memTotal: 143771, powerLimit: 700, memClock: 3201 };

/**
 * nvidia-smi's CSV (GPU_FIELDS order, nounits) for the simulated node at `now`. Like a real node: SGLang and Megatron
 * hold a fixed share of memory per GPU, utilisation sits near 100 % while generating or training with the odd dip,
 * temperatures drift over minutes, and the power draw is what moves from one poll to the next.
 */
export function simulatedGpuCsv(state: SimLiveState | undefined, now: number, node = 0): string {
  const count = Math.max(1, Math.min(16, state?.gpusPerNode ?? 8));
  const phase = state && isLiveStateCurrent(state, now) ? state.phase : 'stopped';
  const second = Math.floor(now / 1000);
  const rows: string[] = [];
  for (let i = 0; i < count; i++) {
    // Node 0 keeps the seeds it always had; other nodes of a simulated cluster draw their own.
    const tag = node === 0 ? '' : `n${node}`;
    const rng = new Rng((hash32(`${tag}gpu${i}`) ^ Math.imul(second, 0x85ebca6b)) >>> 0);
    const uuid = `GPU-${new Rng(hash32(`${tag}uuid${i}`)).uuid4()}`;
    // Minutes-long temperature drift, a different phase per GPU.
    const drift = Math.sin((2 * Math.PI * second) / 300 + i);
    let util: number, memUsed: number, power: number, temp: number, sm: number;
    if (phase === 'generating') {
      // SGLang engines decode: its static memory fraction taken, kernels running nearly all the time.
      util = rng.chance(0.85) ? 100 : rng.range(86, 99);
      memUsed = Math.round(H200.memTotal * (0.84 + 0.01 * (i % 3)));
      power = 560 + 12 * (i % 5) + rng.uniform(-60, 60);
      temp = Math.round(60 + (i % 4) + 3 * drift);
      sm = 1980;
    } else if (phase === 'training') {
      util = rng.chance(0.9) ? 100 : rng.range(93, 99);
      memUsed = Math.round(H200.memTotal * (0.71 + 0.02 * (i % 2)));
      power = 630 + 8 * (i % 5) + rng.uniform(-50, 50);
      temp = Math.round(64 + (i % 4) + 3 * drift);
      sm = 1980;
    } else if (phase === 'starting') {
      util = rng.chance(0.7) ? 0 : rng.range(1, 20);
      memUsed = Math.round(H200.memTotal * 0.3);
      power = 150 + rng.uniform(-20, 40);
      temp = Math.round(35 + (i % 3) + drift);
      sm = 1980;
    } else {
      util = 0;
      memUsed = 0;
      power = 122 + rng.uniform(-3, 3);
      temp = Math.round(31 + (i % 3) + drift);
      sm = 1980;
    }
    const memUtil = util === 0 ? 0 : Math.round(util * 0.3);
    const values: Record<(typeof GPU_FIELDS)[number], string> = {
      index: String(i),
      uuid,
      name: H200.name,
      'utilization.gpu': String(util),
      'utilization.memory': String(memUtil),
      'memory.total': String(H200.memTotal),
      'memory.used': String(memUsed),
      'memory.free': String(H200.memTotal - memUsed - 615),
      'temperature.gpu': String(temp),
      'power.draw': power.toFixed(2),
      'power.limit': H200.powerLimit.toFixed(2),
      'clocks.sm': String(sm),
      'clocks.mem': String(H200.memClock),
      'fan.speed': '[N/A]',
      pstate: 'P0',
    };
    rows.push(GPU_FIELDS.map((f) => values[f]).join(', '));
  }
  return rows.join('\n') + '\n';
}
