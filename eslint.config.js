// ESLint looks for mistakes, not style: Prettier owns the layout, so no formatting rule is on
// here. The type-aware rules (typescript-eslint's recommendedTypeChecked) run on everything
// tsconfig.test.json holds: src/, test/, bench/, migrations/ and scripts/.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

// The Node.js globals the JavaScript files use; TypeScript itself checks names in .ts files.
const nodeGlobals = Object.fromEntries(
  [
    'AbortController',
    'AbortSignal',
    'Buffer',
    'URL',
    'URLSearchParams',
    'TextDecoder',
    'TextEncoder',
    'clearImmediate',
    'clearInterval',
    'clearTimeout',
    'console',
    'fetch',
    'performance',
    'process',
    'queueMicrotask',
    'setImmediate',
    'setInterval',
    'setTimeout',
    'structuredClone',
  ].map((name) => [name, 'readonly']),
);

export default defineConfig(
  // test/fixtures/openapi-client/: type-checked against a generated client by its test.
  globalIgnores([
    'dist/',
    'bench/.cache/',
    'coverage/',
    'data/',
    'node_modules/',
    '.stryker-tmp*/',
    'reports/',
    'test/fixtures/openapi-client/',
  ]),
  {
    files: ['**/*.{ts,cts,js,cjs}', 'bin/archivectl'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      ecmaVersion: 'latest',
      sourceType: 'module',
      globals: nodeGlobals,
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The promise rules come with recommendedTypeChecked; they are named here because they are
      // the point: a promise nobody awaits loses its rejection, and an async callback where a
      // plain one is expected (an event handler, a forEach) runs unawaited. The others add
      // mistakes the presets let pass: `return promise` inside try skips the catch and finally,
      // a switch misses a member of its union, a deprecated API, `==` beyond null checks.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-deprecated': 'error',
      'no-self-compare': 'error',
      'no-unreachable-loop': 'error',
      'array-callback-return': 'error',
      eqeqeq: ['error', 'smart'],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Taste rather than mistakes here. An async function without await still returns the
      // promise its interface asks for. Koa middleware are object methods that never use `this`,
      // and the classes pass no method unbound. An error thrown in a catch replaces an expected
      // failure (a lock held, a failed build) whose message it already carries.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
      'preserve-caught-error': 'off',
    },
  },
  {
    // Tests stringify parsed JSON and YAML values of type unknown on purpose.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-base-to-string': 'off' },
  },
  {
    // The CLI writes through the io it is given (main(argv, io)) and the daemon through its pino
    // logger: a console call would escape both, and the in-process tests.
    files: ['src/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    // JavaScript has no declared types: every value would be `any` to the no-unsafe-* rules.
    files: ['**/*.{js,cjs}', 'bin/archivectl'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Outside tsconfig.test.json's program, so linted without types.
    files: ['*.js', '*.cjs', 'bin/archivectl', 'bin/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // bin/ is CommonJS too (bin/package.json).
    files: ['**/*.cjs', 'bin/archivectl', 'bin/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
