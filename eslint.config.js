// Lint catches bugs; formatting is prettier's (.prettierrc.json). Run by `npm test` (scripts/test-all.mjs).
// Rules that only restyle are left out; each rule turned off below says why.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import lit from 'eslint-plugin-lit';
import litA11y from 'eslint-plugin-lit-a11y';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'coverage/', '.tmp/', 'test-results/', 'custom-elements.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node, ...globals.browser },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Unused code is a bug or dead weight; `_name` marks a parameter kept for its position.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // zod schemas and upstream JSON are typed at the edge; `any` elsewhere is still refused.
      '@typescript-eslint/no-explicit-any': 'error',
      // Non-null assertions are how the tests and the code say "present by construction".
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Kysely<{}>: a query builder whose tables each repository declares itself (withTables).
      '@typescript-eslint/no-empty-object-type': ['error', { allowObjectTypes: 'always' }],
      // `declare module 'react' { namespace JSX … }` is how React's element types are extended.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      // A variable a closure reads before its one assignment must stay `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
    },
  },
  {
    // Tests read JSON answers loosely and chai asserts with expressions (`expect(x).to.be.true`).
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-unused-expressions': 'off' },
  },
  {
    // The widget: Lit templates and their accessibility.
    files: ['widget/**/*.ts'],
    ...lit.configs['flat/recommended'],
  },
  {
    files: ['widget/**/*.ts'],
    ...litA11y.configs.recommended,
  },
  {
    // Type-aware rules that catch the bugs a relay cannot afford: a promise nobody awaits or catches.
    files: ['server/**/*.ts', 'crm-sim/**/*.ts', 'widget/**/*.ts', 'contract/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
);
