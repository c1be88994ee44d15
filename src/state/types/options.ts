// The options every face shares (parsed by src/cli, handed by src/app to the screens and the services).
export interface GlobalOptions {
  workspace: string;
  provider: 'e2b' | 'local';
  debug: boolean;
  color: boolean;
  json: boolean;
  /** --pretty: a --json document indented even when stdout is not a terminal. */
  pretty?: boolean;
}
