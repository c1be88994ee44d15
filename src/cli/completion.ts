// Shell completion scripts (bash, zsh, fish), generated from the command table: the commands, their words and their
// options complete exactly as the parser knows them, so that a new command or option completes without more work.
// The table comes in as an argument (commandTable.ts hands itself over when it loads the command), so this file
// imports nothing of the table's: the table loads the command, and the command reads the table.

/** An option as completion reads it (commandTable.ts's OptionSpec is one). */
export interface CompletionOption {
  name: string;
  type: 'string' | 'boolean';
  short?: string;
  help: string;
}

/** The command table as completion reads it. */
export interface CompletionTable {
  commands: readonly { words: string[]; args?: string; summary: string; options?: readonly CompletionOption[] }[];
  globals: readonly CompletionOption[];
}
type OptionSpec = CompletionOption;
type CommandSpec = CompletionTable['commands'][number];

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const flags = (specs: readonly OptionSpec[]) => specs.flatMap((o) => [`--${o.name}`, ...(o.short ? [`-${o.short}`] : [])]);
/** Options that take a value: the word after them is that value, not a command word. */
const valued = (specs: readonly OptionSpec[]) => specs.filter((o) => o.type === 'string').flatMap((o) => [`--${o.name}`, ...(o.short ? [`-${o.short}`] : [])]);
const groupsOf = (t: CompletionTable) => [...new Set(t.commands.map((c) => c.words[0] as string))];
const subcommands = (t: CompletionTable, group: string) => t.commands.filter((c) => c.words[0] === group && c.words.length > 1).map((c) => c.words[1] as string);
const sq = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(t: CompletionTable): string {
  const allValued = [...new Set([...valued(t.globals), ...t.commands.flatMap((c) => valued(c.options ?? []))])];
  const cases = t.commands.map((c: CommandSpec) => {
    const key = c.words.length > 1 ? `"${c.words.join(' ')}"` : `"${c.words[0]} "*`;
    return `    ${key}) opts="$opts ${flags(c.options ?? []).join(' ')}" ;;`;
  });
  const groups = groupsOf(t).filter((g) => subcommands(t, g).length > 0);
  return [
    '# swegym-console completion for bash: source <(swegym-console completion bash)',
    '_swegym_console() {',
    '  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} w1= w2= i skip=',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    local w=${COMP_WORDS[i]}',
    '    if [[ -n $skip ]]; then skip=; continue; fi',
    `    case $w in ${allValued.join('|')}) skip=1 ;; -*) ;; *) if [[ -z $w1 ]]; then w1=$w; elif [[ -z $w2 ]]; then w2=$w; fi ;; esac`,
    '  done',
    `  case $prev in ${allValued.join('|')}) COMPREPLY=($(compgen -f -- "$cur")); return ;; esac`,
    `  local opts=${sq(flags(t.globals).join(' '))}`,
    '  case "$w1 $w2" in',
    ...cases,
    '  esac',
    '  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); return; fi',
    `  if [[ -z $w1 ]]; then COMPREPLY=($(compgen -W ${sq(groupsOf(t).join(' '))} -- "$cur")); return; fi`,
    '  if [[ -z $w2 ]]; then',
    '    case $w1 in',
    ...groups.map((g) => `      ${g}) COMPREPLY=($(compgen -W ${sq(subcommands(t, g).join(' '))} -- "$cur")); return ;;`),
    '    esac',
    '  fi',
    '  COMPREPLY=($(compgen -f -- "$cur"))',
    '}',
    'complete -o filenames -F _swegym_console swegym-console',
    '',
  ].join('\n');
}

function zsh(t: CompletionTable): string {
  // zsh runs the bash function through its bashcompinit layer: one generator, the same answers.
  return ['#compdef swegym-console', '# swegym-console completion for zsh: source <(swegym-console completion zsh)', 'autoload -U +X compinit && compinit', 'autoload -U +X bashcompinit && bashcompinit', bash(t)].join('\n');
}

function fish(t: CompletionTable): string {
  const out = ['# swegym-console completion for fish: swegym-console completion fish | source', 'complete -c swegym-console -f'];
  const option = (o: OptionSpec, cond?: string) =>
    `complete -c swegym-console${cond ? ` -n ${sq(cond)}` : ''} -l ${o.name}${o.short ? ` -s ${o.short}` : ''}${o.type === 'string' ? ' -r -F' : ''} -d ${sq(o.help)}`;
  for (const o of t.globals) out.push(option(o));
  const groups = groupsOf(t);
  for (const g of groups) {
    const single = t.commands.find((c) => c.words.length === 1 && c.words[0] === g);
    out.push(`complete -c swegym-console -n '__fish_use_subcommand' -a ${g} -d ${sq(single?.summary ?? `${g} commands`)}`);
  }
  for (const c of t.commands.filter((x) => x.words.length > 1)) {
    const [g, sub] = c.words as [string, string];
    out.push(`complete -c swegym-console -n ${sq(`__fish_seen_subcommand_from ${g}; and not __fish_seen_subcommand_from ${subcommands(t, g).join(' ')}`)} -a ${sub} -d ${sq(c.summary)}`);
  }
  for (const c of t.commands) {
    const cond = c.words.length > 1 ? `__fish_seen_subcommand_from ${c.words[0]}; and __fish_seen_subcommand_from ${c.words[1]}` : `__fish_seen_subcommand_from ${c.words[0]}`;
    for (const o of c.options ?? []) out.push(option(o, cond));
    if (c.args) out.push(`complete -c swegym-console -n ${sq(cond)} -F`);
  }
  return out.join('\n') + '\n';
}

export function completionScript(shell: Shell, table: CompletionTable): string {
  return shell === 'bash' ? bash(table) : shell === 'zsh' ? zsh(table) : fish(table);
}

/** The environment reference as the README holds it (a Markdown table), from the same list as --help. */
export function environmentMarkdown(env: readonly { name: string; help: string }[]): string {
  return ['| variable | what it sets |', '| --- | --- |', ...env.map((v) => `| \`${v.name}\` | ${v.help.replace(/\|/g, '\\|')} |`)].join('\n') + '\n';
}
