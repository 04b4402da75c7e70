// ESLint over the daemon, shared code, the desktop app (main, preload, renderer) and the tests.
// Type-aware: each file is checked with the tsconfig.json nearest to it (the root one, or
// desktop/renderer/tsconfig.json for the console). `npm run lint`; installers/prepare.sh runs it
// before every `npm test`.
//
// The rules are the ones that catch server bugs (STYLE.md): a promise nobody awaits or catches
// (a background task whose failure is lost), a promise passed where a plain callback is expected
// (an event handler whose rejection nobody sees), `any`, throwing non-errors, plus the
// recommended sets of @eslint/js and typescript-eslint.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  { ignores: ['dist/**', 'release/**', '.berth-test/**', '**/node_modules/**'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      parserOptions: {
        // vite.config.ts belongs to no tsconfig (the renderer's covers src/, the root one excludes
        // desktop/renderer): it is checked with default options
        projectService: { allowDefaultProject: ['desktop/renderer/vite.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // promises: every one is awaited, returned, or given a handler
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
      '@typescript-eslint/no-implied-eval': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      // `import type` for type-only imports, the style most files already use
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      // the project's convention: a leading underscore names a value left unused on purpose
      // (rest-destructuring that drops a field, a callback parameter a signature requires)
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
    },
  },
  {
    // Small files named for what they hold (STYLE.md): a file over 400 lines is doing two jobs.
    // Every line counts, blank and comment lines included: the limit is on what a reader has to
    // scroll through, it matches `wc -l`, and it cannot be met by deleting comments.
    files: ['daemon/**/*.ts', 'shared/**/*.ts', 'desktop/**/*.ts', 'desktop/**/*.tsx', 'test/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    files: ['desktop/renderer/**/*.ts', 'desktop/renderer/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['**/*.cjs'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly' } },
  },
  {
    files: ['eslint.config.js'],
    extends: [js.configs.recommended],
  },
);
