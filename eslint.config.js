// Lint rules that catch real mistakes; formatting is left to the author.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/out/**', 'tests/fixtures/**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', Buffer: 'readonly',
        URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', fetch: 'readonly',
        TextDecoder: 'readonly', TextEncoder: 'readonly', performance: 'readonly', structuredClone: 'readonly',
        queueMicrotask: 'readonly', Response: 'readonly', Request: 'readonly', Headers: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-control-regex': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // Layering rule from DESIGN.md: services never import Ink or React.
    files: ['src/services/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['ink', 'ink/*', 'react', 'react/*', 'ink-*'], message: 'src/services must not import Ink or React (DESIGN.md layers).' },
        { group: ['**/screens/**', '**/ui/**'], message: 'src/services must not import screens or UI.' },
      ] }],
    },
  },
  {
    // Screens and UI never spawn processes: they call service actions.
    files: ['src/screens/**/*.{ts,tsx}', 'src/ui/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['node:child_process', 'child_process'], message: 'Screens never spawn processes; call a service.' },
      ] }],
    },
  },
  {
    // One of each (issue 26): one sleep (src/services/util/sleep.ts), one backoff (src/services/util/retry.ts).
    // tests/architecture/oneOfEach.test.ts holds the rest (retry policies, publishers) and the same two rules.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/services/util/sleep.ts', 'src/services/util/retry.ts', 'src/vendor/**', 'src/generated/**'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: "NewExpression[callee.name='Promise'] CallExpression[callee.name='setTimeout'][arguments.0.type='Identifier']", message: 'A local sleep: use sleep() from src/services/util/sleep.ts (abortable, unref-able).' },
        { selector: "ImportDeclaration[source.value=/^(node:)?timers\\/promises$/]", message: 'A second sleep: use sleep() from src/services/util/sleep.ts.' },
        { selector: "BinaryExpression[operator='**'][left.value=2][right.type!='Literal']", message: 'A local backoff: take a RetryPolicy preset and backoffDelay() from src/services/util/retry.ts.' },
      ],
    },
  },
);
