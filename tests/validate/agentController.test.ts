// The Validate screen's controller on a `validate agent` run: what the store says at each step of the job's events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidateController } from '../../src/services/validate/controller.js';
import { createValidateStore } from '../../src/state/validate.js';
import { createJobsStore } from '../../src/state/jobs.js';
import { recipePaths } from '../../src/services/workspace/paths.js';
import type { AgentRunRecord, ValidateAgentEvent } from '../../src/state/types/validate.js';
import type { SandboxProvider } from '../../src/services/sandbox/types.js';

function record(resolved: boolean | null, reward: number | null): AgentRunRecord {
  return {
    instance_id: 'sample-org__calc-2', ok: resolved === true, model: 'scripted', scripted: true, cliVersion: '2.1.0',
    claudeCode: { status: 'success', modelTurns: 4, toolCalls: 4, failedToolCalls: 0, apiRetries: 0, cause: null },
    summary: null, reward, resolved, error: null, logFile: '/tmp/x/claude.jsonl', durationMs: 2900, finishedAt: '2026-12-02T00:00:00.000Z',
  };
}

for (const [resolved, reward, said] of [[true, 1, 'resolved (reward 1)'], [false, 0, 'not resolved (reward 0)'], [null, null, 'not resolved']] as const) {
  test(`validate agent: the status line says "${said}" in the same update that brings the record, not a frame later`, async () => {
    const store = createValidateStore();
    const jobs = createJobsStore();
    const seen: { record: boolean; message: string }[] = [];
    store.subscribe((s) => seen.push({ record: Boolean(s.agent?.record), message: s.message?.text ?? '' }));
    let release!: () => void;
    const cleanup = new Promise<void>((r) => (release = r));
    const controller = new ValidateController({
      paths: recipePaths('/nonexistent-ws'), store, jobs, openProvider: async () => ({}) as SandboxProvider,
      runAgentJob: async ({ instanceId, onEvent }) => {
        const emit = (e: ValidateAgentEvent) => onEvent?.(e);
        emit({ type: 'started', instanceId, provider: 'local', scripted: true, modelLabel: 'scripted' });
        emit({ type: 'phase', instanceId, phase: 'running' });
        emit({ type: 'finished', instanceId, record: record(resolved, reward) });
        await cleanup; // the job may still be tearing its sandbox down after the record is out
      },
    });
    const run = controller.runAgent('sample-org__calc-2');
    await new Promise((r) => setImmediate(r));
    const withRecord = seen.filter((s) => s.record);
    assert.ok(withRecord.length > 0, 'the record reached the store');
    for (const s of withRecord) assert.equal(s.message, `validate agent sample-org__calc-2: ${said}`);
    assert.equal(store.getState().agent?.running, false);
    release();
    await run;
    assert.equal(store.getState().message?.text, `validate agent sample-org__calc-2: ${said}`);
    assert.deepEqual(Object.keys(jobs.getState().jobs), []);
  });
}
