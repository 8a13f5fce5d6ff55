// The lint `npm test` runs after the format check: typescript-eslint's strict type-aware rules (floating
// and misused promises, unused values, unsafe `any`), less the few whose findings here are the house's
// habits rather than mistakes (each turned off below says why), and the layers of docs/architecture.md
// as import rules, so an editor shows a crossing as it is typed (test/unit/boundaries.test.ts stays the
// judge: it also follows what the webview bundles through src/protocol and finds loops).
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = builtinModules.flatMap((m) => [m, `node:${m}`]);
const vscode = { name: 'vscode', message: 'only src/extension (and its tests) talk to VS Code' };
const noNode = nodeBuiltins.map((name) => ({ name, message: 'this runs in a browser: no Node built-ins' }));

export default tseslint.config(
  {
    ignores: ['out/', 'node_modules/', '.vscode-test/', 'test-artifacts/', '.braid/', '.braid-example/', 'scripts/'],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // noUncheckedIndexedAccess makes `!` the way to say "checked above"; there are ~1,600 of them.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `() => void x()` shorthand for callbacks is the house style; it hides no value anyone reads.
      '@typescript-eslint/no-confusing-void-expression': 'off',
      // Defensive checks on data typed narrower than it arrives (JSON, child output, old run.json).
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Records keyed by step id are cleared by key; a Map everywhere would be churn, not safety.
      '@typescript-eslint/no-dynamic-delete': 'off',
      // `async` marks a promise-returning interface; dropping it would turn a rejection into a throw.
      '@typescript-eslint/require-await': 'off',
      // Dependency objects here are bags of functions that use no `this`; the rule cannot tell.
      '@typescript-eslint/unbound-method': 'off',
      // `{ dispose() {...} }` is a Disposable by shape, which is how VS Code's own API takes one.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // Spreading a string into code points is what the glob and overlap parsers mean.
      '@typescript-eslint/no-misused-spread': 'off',
      // String(x) here is of values already narrowed from unknown (YAML scalars, protobuf longs, errors).
      '@typescript-eslint/no-base-to-string': 'off',
      // Terminal output and file names are stripped of control characters on purpose.
      'no-control-regex': 'off',
      // `.catch((e) => ...)` reads `e` through errorMessage()/narrowing like a catch clause does.
      '@typescript-eslint/use-unknown-in-catch-callback-variable': 'off',
      // `x === true` guards values typed boolean that arrive undefined (isTTY, settings, plan agents' options).
      '@typescript-eslint/no-unnecessary-boolean-literal-compare': 'off',
      // Numbers and booleans print as themselves; `undefined`, objects and `any` in a message are bugs.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // An AbortSignal's reason is whatever the aborter gave; rejecting with it is the platform's convention.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingUnknown: true, allowThrowingAny: true },
      ],
      // `void check;` marks a compile-time agreement check (protocol/engine.ts) as used.
      '@typescript-eslint/no-meaningless-void-operator': 'off',
      // A `let` assigned after the closures that read it are made cannot be a `const` without a TDZ trap.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // A stored rejection reason may be rethrown as it came.
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Tests and benches read parsed JSON and untyped exports, then assert on them: the assertion is the check.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // A regex matching a fixed run of spaces in expected output reads better spelled out.
      'no-regex-spaces': 'off',
    },
  },
  // The layers of docs/architecture.md.
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ ...vscode, message: 'src/core never imports vscode' }],
          patterns: [
            { regex: '^(\\.\\./)+(extension|cli|protocol)(/|$)', message: 'src/core imports nothing above it' },
            { regex: '^(\\.\\./)+webview(/|$)', message: 'src/core imports nothing above it' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ ...vscode, message: 'src/protocol never imports vscode' }, ...noNode],
          patterns: [
            { regex: '^\\.\\./(extension|cli)(/|$)', message: 'src/protocol imports only itself and src/core' },
            { regex: '^\\.\\./\\.\\./', message: 'src/protocol imports only itself and src/core' },
          ],
        },
      ],
    },
  },
  {
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ ...vscode, message: 'webview/ runs in a browser' }, ...noNode],
          patterns: [{ regex: '^\\.\\./src/(?!protocol/)', message: 'webview/ talks only through src/protocol' }],
        },
      ],
    },
  },
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly' } },
  },
);
