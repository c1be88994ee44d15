// Shell completion scripts (bash, zsh, fish), generated from the command table: the commands, their words and their
// options complete exactly as the parser knows them, so that a new command or option completes without more work.
import { COMMANDS, GLOBAL_OPTIONS, commandGroups, type CommandSpec, type OptionSpec } from './commandTable.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const flags = (specs: readonly OptionSpec[]) => specs.flatMap((o) => [`--${o.name}`, ...(o.short ? [`-${o.short}`] : [])]);
/** Options that take a value: the word after them is that value, not a command word. */
const valued = (specs: readonly OptionSpec[]) => specs.filter((o) => o.type === 'string').flatMap((o) => [`--${o.name}`, ...(o.short ? [`-${o.short}`] : [])]);
const subcommands = (group: string) => COMMANDS.filter((c) => c.words[0] === group && c.words.length > 1).map((c) => c.words[1] as string);
const sq = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(): string {
  const allValued = [...new Set([...valued(GLOBAL_OPTIONS), ...COMMANDS.flatMap((c) => valued(c.options ?? []))])];
  const cases = COMMANDS.map((c: CommandSpec) => {
    const key = c.words.length > 1 ? `"${c.words.join(' ')}"` : `"${c.words[0]} "*`;
    return `    ${key}) opts="$opts ${flags(c.options ?? []).join(' ')}" ;;`;
  });
  const groups = commandGroups().filter((g) => subcommands(g).length > 0);
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
    `  local opts=${sq(flags(GLOBAL_OPTIONS).join(' '))}`,
    '  case "$w1 $w2" in',
    ...cases,
    '  esac',
    '  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); return; fi',
    `  if [[ -z $w1 ]]; then COMPREPLY=($(compgen -W ${sq(commandGroups().join(' '))} -- "$cur")); return; fi`,
    '  if [[ -z $w2 ]]; then',
    '    case $w1 in',
    ...groups.map((g) => `      ${g}) COMPREPLY=($(compgen -W ${sq(subcommands(g).join(' '))} -- "$cur")); return ;;`),
    '    esac',
    '  fi',
    '  COMPREPLY=($(compgen -f -- "$cur"))',
    '}',
    'complete -o filenames -F _swegym_console swegym-console',
    '',
  ].join('\n');
}

function zsh(): string {
  // zsh runs the bash function through its bashcompinit layer: one generator, the same answers.
  return ['#compdef swegym-console', '# swegym-console completion for zsh: source <(swegym-console completion zsh)', 'autoload -U +X compinit && compinit', 'autoload -U +X bashcompinit && bashcompinit', bash()].join('\n');
}

function fish(): string {
  const out = ['# swegym-console completion for fish: swegym-console completion fish | source', 'complete -c swegym-console -f'];
  const option = (o: OptionSpec, cond?: string) =>
    `complete -c swegym-console${cond ? ` -n ${sq(cond)}` : ''} -l ${o.name}${o.short ? ` -s ${o.short}` : ''}${o.type === 'string' ? ' -r -F' : ''} -d ${sq(o.help)}`;
  for (const o of GLOBAL_OPTIONS) out.push(option(o));
  const groups = commandGroups();
  for (const g of groups) {
    const single = COMMANDS.find((c) => c.words.length === 1 && c.words[0] === g);
    out.push(`complete -c swegym-console -n '__fish_use_subcommand' -a ${g} -d ${sq(single?.summary ?? `${g} commands`)}`);
  }
  for (const c of COMMANDS.filter((x) => x.words.length > 1)) {
    const [g, sub] = c.words as [string, string];
    out.push(`complete -c swegym-console -n ${sq(`__fish_seen_subcommand_from ${g}; and not __fish_seen_subcommand_from ${subcommands(g).join(' ')}`)} -a ${sub} -d ${sq(c.summary)}`);
  }
  for (const c of COMMANDS) {
    const cond = c.words.length > 1 ? `__fish_seen_subcommand_from ${c.words[0]}; and __fish_seen_subcommand_from ${c.words[1]}` : `__fish_seen_subcommand_from ${c.words[0]}`;
    for (const o of c.options ?? []) out.push(option(o, cond));
    if (c.args) out.push(`complete -c swegym-console -n ${sq(cond)} -F`);
  }
  return out.join('\n') + '\n';
}

export function completionScript(shell: Shell): string {
  return shell === 'bash' ? bash() : shell === 'zsh' ? zsh() : fish();
}

/** The environment reference as the README holds it (a Markdown table), from the same list as --help. */
export function environmentMarkdown(env: readonly { name: string; help: string }[]): string {
  return ['| variable | what it sets |', '| --- | --- |', ...env.map((v) => `| \`${v.name}\` | ${v.help.replace(/\|/g, '\\|')} |`)].join('\n') + '\n';
}
