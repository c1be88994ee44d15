// The agent types that the stores hold; src/services/agent builds them and re-exports them.

export interface StreamEventView {
  type: string;
  text: string;
  /** Tool calls of an assistant event, as `Name(short input)`. */
  tools?: string[];
  /** How the drill-in colours it: an error ending, a retry, a tool error. */
  tone?: 'ok' | 'warn' | 'error';
}
