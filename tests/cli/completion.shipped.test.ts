// Shell completion from the command table, through the built binary: the bash script answers in a real bash
// (commands, subcommands, options, values after a valued option); the zsh and fish scripts name every command and
// option (zsh and fish are checked for syntax where installed, and skipped saying so where not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { COMMANDS, GLOBAL_OPTIONS } from '../../src/cli/commandTable.js';
import { builtMissing, runConsole } from '../helpers/builtCli.js';

const skip = builtMissing();

function has(shell: string): boolean {
  try {
    execFileSync(shell, ['-c', 'exit 0'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** What bash completes for the words typed so far (the last one is being completed). */
function bashComplete(script: string, words: string[]): string[] {
  const program = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _swegym_console; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', program], { encoding: 'utf8', cwd: '/' }).split('\n').filter(Boolean).sort();
}

test('bash: commands, subcommands and options complete as the parser knows them', { skip: skip || (!has('bash') ? 'bash not installed' : false), timeout: 60_000 }, async () => {
  const r = await runConsole(['completion', 'bash']);
  assert.equal(r.code, 0, r.err);
  execFileSync('bash', ['-n'], { input: r.out });
  assert.deepEqual(bashComplete(r.out, ['swegym-console', 'tem']), ['templates']);
  assert.deepEqual(bashComplete(r.out, ['swegym-console', 'd']), ['data', 'demo', 'doctor']);
  assert.deepEqual(bashComplete(r.out, ['swegym-console', 'templates', '']), ['build', 'smoke', 'status']);
  assert.deepEqual(bashComplete(r.out, ['swegym-console', 'templates', 'build', '--con']), ['--concurrency']);
  // A valued global option's value is not taken for the command word.
  assert.deepEqual(bashComplete(r.out, ['swegym-console', '--workspace', '/tmp', 'validate', 'harness', '--in']), ['--instance']);
  assert.deepEqual(bashComplete(r.out, ['swegym-console', 'monitor', '--o']), ['--once']);
  assert.ok(bashComplete(r.out, ['swegym-console', 'doctor', '--']).includes('--json'));
});

test('zsh and fish: every command and option is named; usage error for another shell', { skip, timeout: 60_000 }, async (t) => {
  for (const shell of ['zsh', 'fish']) {
    const r = await runConsole(['completion', shell]);
    assert.equal(r.code, 0, r.err);
    for (const c of COMMANDS) for (const w of c.words) assert.ok(r.out.includes(w), `${shell}: ${w}`);
    for (const o of [...GLOBAL_OPTIONS, ...COMMANDS.flatMap((c) => c.options ?? [])]) assert.ok(r.out.includes(shell === 'fish' ? `-l ${o.name}` : `--${o.name}`), `${shell}: --${o.name}`);
    if (has(shell)) execFileSync(shell, ['-n'], { input: r.out });
    else t.diagnostic(`${shell} is not installed: its script's syntax is not checked here`);
  }
  const bad = await runConsole(['completion', 'tcsh']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /completion needs one shell: bash, zsh, fish/);
});
