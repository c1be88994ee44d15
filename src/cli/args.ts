// Argument parsing generated from the command table. Pure: no I/O, so it is tested directly.
import { parseArgs } from 'node:util';
import path from 'node:path';
import { COMMANDS, ENVIRONMENT, GLOBAL_OPTIONS, commandGroups, findCommand, type CommandSpec, type OptionSpec } from './commandTable.js';
import type { OptionValue } from './context.js';
import type { GlobalOptions } from '../state/types/options.js';
import { setting } from '../services/config/envSettings.js';

export type ParsedArgs =
  | { kind: 'help'; topic?: CommandSpec; group?: string }
  | { kind: 'version' }
  | { kind: 'interactive'; global: GlobalOptions }
  | { kind: 'command'; spec: CommandSpec; global: GlobalOptions; options: Record<string, OptionValue>; positionals: string[] }
  | { kind: 'error'; message: string; hint?: string };

function toParseArgsConfig(specs: OptionSpec[]) {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const s of specs) {
    options[s.name] = { type: s.type, ...(s.multiple ? { multiple: true } : {}), ...(s.short ? { short: s.short } : {}) };
  }
  return options;
}

function resolveGlobal(values: Record<string, OptionValue>, env: NodeJS.ProcessEnv, cwd: string): GlobalOptions | string {
  const provider = (values.provider as string | undefined) ?? setting(env, 'SWEGYM_CONSOLE_PROVIDER') ?? 'e2b';
  if (provider !== 'e2b' && provider !== 'local') return `--provider must be e2b or local, got "${provider}"`;
  const workspace = path.resolve(cwd, (values.workspace as string | undefined) ?? setting(env, 'SWEGYM_CONSOLE_WORKSPACE') ?? '.');
  const noColor = values['no-color'] === true || setting(env, 'NO_COLOR');
  return { workspace, provider, debug: values.debug === true, color: !noColor, json: values.json === true, ...(values.pretty === true ? { pretty: true } : {}) };
}

/**
 * `--concurrency -1`: parseArgs reads "-1" as an option and answers "argument is ambiguous"; a negative number after
 * a string option is its value, joined as `--concurrency=-1` so that the option's own check explains it.
 */
function joinNegativeValues(argv: string[], specs: OptionSpec[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const next = argv[i + 1];
    const spec = specs.find((o) => `--${o.name}` === a || (o.short !== undefined && `-${o.short}` === a));
    if (spec?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`--${spec.name}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ParsedArgs {
  // Command words are the leading non-option arguments (global options may come before them).
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a.startsWith('-')) {
      const spec = GLOBAL_OPTIONS.find((o) => `--${o.name}` === a || (o.short && `-${o.short}` === a));
      if (spec?.type === 'string') i++;
      continue;
    }
    words.push(a);
    if (words.length >= 2) break;
  }
  const found = findCommand(words);
  const isGroup = words[0] !== undefined && commandGroups().includes(words[0]) && !found;
  if (words.length > 0 && !found && !isGroup) {
    const known = commandGroups().join(', ');
    return { kind: 'error', message: `unknown command "${words[0]}"`, hint: `commands: ${known}; see swegym-console --help` };
  }
  const commandOptions = found?.spec.options ?? [];
  argv = joinNegativeValues(argv, [...GLOBAL_OPTIONS, ...commandOptions]);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: toParseArgsConfig([...GLOBAL_OPTIONS, ...commandOptions]),
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    const helpHint = found ? `see swegym-console ${found.spec.words.join(' ')} --help` : 'see swegym-console --help';
    return { kind: 'error', ...parseErrorWords(err as Error & { code?: string }, found?.spec), hint: helpHint };
  }
  const values = parsed.values as Record<string, OptionValue>;
  if (values.version) return { kind: 'version' };
  if (isGroup) {
    if (values.help) return { kind: 'help', group: words[0] };
    const subs = COMMANDS.filter((c) => c.words[0] === words[0]).map((c) => c.words.slice(1).join(' '));
    return {
      kind: 'error',
      message: words[1] ? `unknown ${words[0]} command "${words[1]}"` : `${words[0]} needs a subcommand`,
      hint: `${words[0]} commands: ${subs.join(', ')}`,
    };
  }
  if (values.help) return { kind: 'help', topic: found?.spec };
  const global = resolveGlobal(values, env, cwd);
  if (typeof global === 'string') return { kind: 'error', message: global };
  if (!found) {
    if (parsed.positionals.length > 0) return { kind: 'error', message: `unexpected argument "${parsed.positionals[0]}"` };
    return { kind: 'interactive', global };
  }
  if (global.json && !found.spec.json) {
    return { kind: 'error', message: `${found.spec.words.join(' ')} has no --json output` };
  }
  const positionals = parsed.positionals.slice(found.consumed);
  if (!found.spec.args && positionals.length > 0) {
    return { kind: 'error', message: `unexpected argument "${positionals[0]}" for ${found.spec.words.join(' ')}`, hint: `see swegym-console ${found.spec.words.join(' ')} --help` };
  }
  const options: Record<string, OptionValue> = {};
  for (const o of commandOptions) options[o.name] = values[o.name];
  return { kind: 'command', spec: found.spec, global, options, positionals };
}

/**
 * parseArgs's errors in the console's words: Node's own text for an unknown option ends in an unbalanced quote
 * (`as in '-- "--bogus"`) and speaks of positional arguments; this names the option and the command.
 */
function parseErrorWords(err: Error & { code?: string }, spec: CommandSpec | undefined): { message: string } {
  const where = spec ? ` for ${spec.words.join(' ')}` : '';
  const text = err.message.replace(/^TypeError \[[A-Z_]+\]: /, '');
  const option = /^Unknown option '([^']+)'/.exec(text)?.[1];
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) {
    return { message: `unknown option ${option}${where} (an argument that starts with "-" goes after --, as in: -- ${option})` };
  }
  const missing = /^Option '(?:-\w, )?([^' ]+)(?: <value>)?' argument missing/.exec(text)?.[1];
  if (missing) return { message: `${missing}${where} needs a value` };
  const noArg = /^Option '([^' ]+)' does not take an argument/.exec(text)?.[1];
  if (noArg) return { message: `${noArg} takes no value (it is a switch)` };
  return { message: text };
}

function envLines(): string[] {
  const width = Math.max(...ENVIRONMENT.map((v) => v.name.length)) + 2;
  return ENVIRONMENT.map((v) => `  ${v.name.padEnd(width)}${v.help}`);
}

function optionLines(specs: OptionSpec[]): string[] {
  const rows = specs.map((o) => {
    const flag = `${o.short ? `-${o.short}, ` : '    '}--${o.name}${o.arg ? ` ${o.arg}` : ''}${o.multiple ? ' …' : ''}`;
    return [flag, o.help] as const;
  });
  const width = Math.max(...rows.map((r) => r[0].length)) + 2;
  return rows.map(([f, h]) => `  ${f.padEnd(width)}${h}`);
}

export function helpText(version: string, topic?: CommandSpec, group?: string): string {
  if (topic) {
    const lines = [
      `usage: swegym-console ${topic.words.join(' ')}${topic.args ? ` ${topic.args}` : ''} [options]`,
      '',
      `  ${topic.summary}`,
      ...(topic.load ? [] : ['', '  (not implemented yet in this version)']),
    ];
    if (topic.options?.length) lines.push('', 'options:', ...optionLines(topic.options));
    lines.push('', 'global options:', ...optionLines(GLOBAL_OPTIONS.filter((o) => (o.name !== 'json' && o.name !== 'pretty') || topic.json)));
    return lines.join('\n') + '\n';
  }
  const inGroup = group ? COMMANDS.filter((c) => c.words[0] === group) : COMMANDS;
  const row = (c: CommandSpec) => [`${c.words.join(' ')}${c.args ? ` ${c.args}` : ''}`, c.summary + (c.load ? '' : ' (not yet)')] as const;
  const rows = inGroup.filter((c) => !c.hidden).map(row);
  // Developer tools (the run simulator) are listed apart, so that nobody takes them for a step of the recipe.
  const devRows = inGroup.filter((c) => c.hidden).map(row);
  const width = Math.max(...[...rows, ...devRows].map((r) => r[0].length)) + 2;
  const lines = [
    `swegym-console ${version} — from a Dressage checkout to a monitored SWE-Gym GRPO run`,
    '',
    'usage: swegym-console [options]                 the interactive console (needs a terminal)',
    '       swegym-console <command> [options]       the same work, headless',
    '',
    'commands:',
    ...rows.map(([c, s]) => `  ${c.padEnd(width)}${s}`),
    ...(devRows.length ? ['', 'developer tools:', ...devRows.map(([c, s]) => `  ${c.padEnd(width)}${s}`)] : []),
    '',
    'global options:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    'environment:',
    ...envLines(),
    '',
    'shell completion: source <(swegym-console completion bash)   (zsh: the same with zsh; fish: swegym-console completion fish | source)',
    'exit codes: 0 success, 1 the operation failed, 2 usage error, 3 preconditions not met',
  ];
  return lines.join('\n') + '\n';
}
