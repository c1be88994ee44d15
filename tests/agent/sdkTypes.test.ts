// The stream-json reader's view of Claude Code's events (src/services/agent/streamJsonWire.ts) held to the CLI's own
// message types, @anthropic-ai/claude-agent-sdk's SDKMessage union (a dev dependency used for its types only, at the
// version whose claudeCodeVersion is the pinned CLI). The checks are types: `tsc` (npm run typecheck, the first step
// of npm test) fails here, naming the field, when an SDK upgrade renames a field the reader reads or changes its type.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { SDKAPIRetryMessage, SDKAssistantMessage, SDKBackgroundTasksChangedMessage, SDKMessage, SDKPermissionDeniedMessage, SDKResultError, SDKResultSuccess, SDKSystemMessage, SDKTaskNotificationMessage, SDKTaskStartedMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import type * as W from '../../src/services/agent/streamJsonWire.js';

/** The fields of V (deep, through objects and arrays) that S does not have: `never` when S has them all. */
type Missing<S, V, P extends string = ''> = V extends readonly (infer VE)[]
  ? S extends readonly (infer SE)[]
    ? Missing<SE, VE, `${P}[].`>
    : `${P}(not a list)`
  : V extends object
    ? { [K in keyof V & string]-?: K extends keyof S ? Missing<NonNullable<S[K]>, NonNullable<V[K]>, `${P}${K}.`> : `${P}${K}` }[keyof V & string]
    : never;
/** Compiles only when S has every field the reader reads: `none<Missing<S, V>>()` names those it lacks... */
function none<_Missing extends never>(): void {}
/** ...and each of the SDK's fields is of a type the reader accepts. */
function fits<_S extends V, V>(): void {}

type Block = SDKAssistantMessage['message']['content'][number];
type UserBlock = Exclude<SDKUserMessage['message']['content'], string>[number];

// Assistant replies: the message id, model, usage and content blocks; the subagent marker.
none<Missing<SDKAssistantMessage, W.WireAssistant>>();
fits<SDKAssistantMessage, W.WireAssistant>();
none<Missing<Extract<Block, { type: 'tool_use' }>, W.WireToolUse>>();
fits<Extract<Block, { type: 'tool_use' }>, W.WireToolUse>();
none<Missing<Extract<Block, { type: 'text' }>, W.WireText>>();
fits<Extract<Block, { type: 'text' }>, W.WireText>();
none<Missing<Extract<Block, { type: 'thinking' }>, W.WireThinking>>();
fits<Extract<Block, { type: 'thinking' }>, W.WireThinking>();
// Tool results (user events).
none<Missing<SDKUserMessage, W.WireUser>>();
fits<SDKUserMessage, W.WireUser>();
none<Missing<Extract<UserBlock, { type: 'tool_result' }>, W.WireToolResult>>();
fits<Extract<UserBlock, { type: 'tool_result' }>, W.WireToolResult>();
// Results: success (also the API error ending) and the error subtypes.
none<Missing<SDKResultSuccess, W.WireResultSuccess>>();
fits<SDKResultSuccess, W.WireResultSuccess>();
none<Missing<SDKResultError, W.WireResultError>>();
fits<SDKResultError, W.WireResultError>();
// System events.
none<Missing<SDKSystemMessage, W.WireInit>>();
fits<SDKSystemMessage, W.WireInit>();
none<Missing<SDKAPIRetryMessage, W.WireApiRetry>>();
fits<SDKAPIRetryMessage, W.WireApiRetry>();
none<Missing<SDKPermissionDeniedMessage, W.WirePermissionDenied>>();
fits<SDKPermissionDeniedMessage, W.WirePermissionDenied>();
none<Missing<SDKTaskStartedMessage, W.WireTaskStarted>>();
fits<SDKTaskStartedMessage, W.WireTaskStarted>();
none<Missing<SDKTaskNotificationMessage, W.WireTaskNotification>>();
fits<SDKTaskNotificationMessage, W.WireTaskNotification>();
none<Missing<SDKBackgroundTasksChangedMessage, W.WireBackgroundTasksChanged>>();
fits<SDKBackgroundTasksChangedMessage, W.WireBackgroundTasksChanged>();

/** Each kind the reader knows is a member of SDKMessage with that type (and subtype). */
type Kind<E> = E extends { type: infer T; subtype: infer S } ? [T, S] : E extends { type: infer T } ? [T] : never;
type SdkKinds = Kind<SDKMessage>;
function known<_K extends SdkKinds>(): void {}
known<Kind<W.WireAssistant>>();
known<Kind<W.WireUser>>();
known<Kind<W.WireResultSuccess>>();
known<Kind<W.WireInit>>();
known<Kind<W.WireApiRetry>>();
known<Kind<W.WirePermissionDenied>>();
known<Kind<W.WireTaskStarted>>();
known<Kind<W.WireTaskNotification>>();
known<Kind<W.WireBackgroundTasksChanged>>();
// The error subtypes the SDK names are the reader's `error_…`.
fits<SDKResultError['subtype'], W.WireResultError['subtype']>();

// The checks themselves: a field the SDK lacks is named, a field of another type does not fit.
// @ts-expect-error `num_turnz` is no field of SDKResultSuccess: the error names it.
none<Missing<SDKResultSuccess, { num_turnz: number }>>();
// @ts-expect-error the SDK's num_turns is a number, not a string.
fits<SDKResultSuccess, { num_turns: string }>();
// @ts-expect-error a nested field: message.usage.input_tokenz.
none<Missing<SDKAssistantMessage, { message: { usage: { input_tokenz: number } } }>>();
// @ts-expect-error an element field of a list: tasks[].task_idz.
none<Missing<SDKBackgroundTasksChangedMessage, { tasks: { task_idz: string }[] }>>();

const pkg = (name: string) => JSON.parse(fs.readFileSync(path.resolve('node_modules', name, 'package.json'), 'utf8'));

test('the SDK whose types the reader is held to is the one of the pinned CLI (claudeCodeVersion), upgraded together', () => {
  const sdk = pkg('@anthropic-ai/claude-agent-sdk');
  const cli = pkg('@anthropic-ai/claude-code');
  const declared = JSON.parse(fs.readFileSync('package.json', 'utf8'));
  assert.equal(sdk.claudeCodeVersion, cli.version, `@anthropic-ai/claude-agent-sdk ${sdk.version} is the SDK of Claude Code ${sdk.claudeCodeVersion}, the pinned CLI is ${cli.version}: pin the SDK whose claudeCodeVersion is the CLI's (npm view @anthropic-ai/claude-agent-sdk@0.3 claudeCodeVersion)`);
  assert.equal(declared.devDependencies['@anthropic-ai/claude-agent-sdk'], sdk.version, 'the installed SDK is the pinned one (npm ci)');
  assert.equal(declared.devDependencies['@anthropic-ai/claude-code'], cli.version);
});

test('the SDK is there for its types only: its native binaries are not installed, and nothing in src imports it', () => {
  for (const platform of Object.keys(pkg('@anthropic-ai/claude-agent-sdk').optionalDependencies ?? {})) {
    const dir = path.resolve('node_modules', platform);
    if (!fs.existsSync(dir)) continue;
    assert.deepEqual(fs.readdirSync(dir).sort(), ['package.json'], `${platform} is package.json's empty stand-in (overrides), not a ~400 MB binary`);
  }
  const offenders: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const f = path.join(d, e.name);
      if (e.isDirectory()) walk(f);
      else if (/\.tsx?$/.test(e.name) && /from '@anthropic-ai\/(claude-agent-sdk|sdk)/.test(fs.readFileSync(f, 'utf8'))) offenders.push(f);
    }
  };
  walk(path.resolve('src'));
  assert.deepEqual(offenders, [], 'the built binary must not need a dev dependency');
});
