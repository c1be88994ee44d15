// The fields of Claude Code's stream-json events that the reader (streamJson.ts) reads, with the types it assumes,
// in the shape of the CLI's own message types (@anthropic-ai/claude-agent-sdk's SDKMessage union: SDKAssistantMessage,
// SDKUserMessage, SDKResultSuccess/SDKResultError, SDKSystemMessage, SDKAPIRetryMessage, …). The reader takes events
// through these types only, so it cannot read a field this file does not name; tests/agent/sdkTypes.test.ts holds
// every field named here to the SDK's types (the version that matches the pinned CLI) at compile time, so a CLI
// upgrade that renames a field or changes its type fails `tsc`. The SDK is a dev dependency used for types only:
// nothing here imports it, and the built binary does not need it.
//
// A log line may still lack any field or hold another type (an older or newer CLI, a foreign line): the reader gets
// `Loose<…>` views and checks each value before it uses it.

/** BetaUsage (assistant replies) and NonNullableUsage (results): the token counts the reader adds up. */
export interface WireUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number | null;
  cache_creation_input_tokens: number | null;
}

/** The content blocks of an assistant reply the reader looks into (BetaContentBlock's members by `type`). */
export interface WireToolUse {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}
export interface WireText {
  type: 'text';
  text: string;
}
export interface WireThinking {
  type: 'thinking';
}
export type WireAssistantBlock = WireToolUse | WireText | WireThinking;

/** A tool's result, in a `user` event (ToolResultBlockParam). */
export interface WireToolResult {
  type: 'tool_result';
  tool_use_id: string;
  is_error?: boolean;
  content?: unknown;
}

export interface WireAssistant {
  type: 'assistant';
  session_id: string;
  /** Set on a subagent's messages: the parent's Agent/Task tool_use id. */
  parent_tool_use_id: string | null;
  message: {
    id: string;
    /** `<synthetic>` on the message the CLI writes for a failed API call. */
    model: string;
    usage: WireUsage;
    /** Any block type; the reader looks into those of WireAssistantBlock. */
    content: readonly { type: string }[];
  };
}

export interface WireUser {
  type: 'user';
  /** Optional in SDKUserMessage. */
  session_id?: string;
  parent_tool_use_id: string | null;
  /** A string or blocks; the reader looks into the tool_result blocks (WireToolResult). */
  message: { content: unknown };
}

/** A result's own permission denials (SDKPermissionDenial). */
export interface WirePermissionDenial {
  tool_name: string;
  tool_use_id: string;
}

interface WireResultCommon {
  type: 'result';
  session_id: string;
  is_error: boolean;
  num_turns: number;
  usage: WireUsage;
  permission_denials: readonly WirePermissionDenial[];
  queued_turn_count?: number;
  /** `api_error` on a failed API call (TerminalReason). */
  terminal_reason?: string;
}
/** SDKResultSuccess: also the ending of a failed API call (`is_error: true`, api_error_status). */
export interface WireResultSuccess extends WireResultCommon {
  subtype: 'success';
  result: string;
  api_error_status?: number | null;
}
/** SDKResultError: max turns, max budget, an error during execution. */
export interface WireResultError extends WireResultCommon {
  subtype: `error_${string}`;
  errors: readonly string[];
}
export type WireResult = WireResultSuccess | WireResultError;

/** SDKSystemMessage (`init`). */
export interface WireInit {
  type: 'system';
  subtype: 'init';
  session_id: string;
  model: string;
}
/** SDKAPIRetryMessage. */
export interface WireApiRetry {
  type: 'system';
  subtype: 'api_retry';
  session_id: string;
  attempt: number;
  max_retries: number;
  retry_delay_ms: number;
  error_status: number | null;
  /** A kind of error (`server_error`, `overloaded`, …). */
  error: string;
}
/** SDKPermissionDeniedMessage. */
export interface WirePermissionDenied {
  type: 'system';
  subtype: 'permission_denied';
  session_id: string;
  tool_name: string;
  tool_use_id: string;
  message: string;
}
/** SDKTaskStartedMessage / SDKTaskNotificationMessage: a background task (a subagent, a background command). */
export interface WireTaskStarted {
  type: 'system';
  subtype: 'task_started';
  session_id: string;
  task_id: string;
}
export interface WireTaskNotification {
  type: 'system';
  subtype: 'task_notification';
  session_id: string;
  task_id: string;
}
/** SDKBackgroundTasksChangedMessage: the CLI's own list of what still runs in the background. */
export interface WireBackgroundTasksChanged {
  type: 'system';
  subtype: 'background_tasks_changed';
  session_id: string;
  tasks: readonly { task_id: string }[];
}
export type WireSystem = WireInit | WireApiRetry | WirePermissionDenied | WireTaskStarted | WireTaskNotification | WireBackgroundTasksChanged;

export type WireEvent = WireAssistant | WireUser | WireResult | WireSystem;

/** An event as a log line holds it: any field may be missing; what is there may be of another type than declared
 * (the reader checks), but it is read by the declared name only. */
export type Loose<T> = T extends readonly (infer U)[] ? readonly Loose<U>[] : T extends object ? { [K in keyof T]?: Loose<T[K]> | null } : T;
