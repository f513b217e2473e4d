import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import pluginVue from 'eslint-plugin-vue';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'out/',
      'dist/',
      'data/',
      'renderer/dist/',
      'test-results/',
      '.stryker-tmp/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'off',
    },
  },
  {
    files: ['server/**/*.ts'],
    rules: {
      // server/ must run without Electron (headless, tests, PostgreSQL later).
      'no-restricted-imports': ['error', { paths: ['electron'] }],
    },
  },
  {
    // The HTTP contract is shared by the server and the console (browser): zod only.
    files: ['contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/server/**', '**/renderer/**', '**/main/**'],
              message: 'contract/ imports only zod',
            },
            { group: ['node:*'], message: 'contract/ runs in the browser too: no Node modules' },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'require', '__dirname', '__filename', 'global'].map((name) => ({
          name,
          message: 'contract/ runs in the browser too: no Node globals',
        })),
      ],
    },
  },
  ...pluginVue.configs['flat/recommended'],
  {
    files: ['renderer/**/*.vue', 'test/renderer/**/*.vue'],
    languageOptions: {
      parserOptions: {
        parser: tseslint.parser,
        extraFileExtensions: ['.vue'],
        sourceType: 'module',
      },
    },
  },
  {
    // The console runs in a browser and talks HTTP only: no server code, no Node. It takes the
    // contract's types (`import type … from '@contract'`), and values only from the files that
    // import nothing (the audit actions): zod and the schemas stay out of the bundle.
    files: ['renderer/src/**/*.{ts,vue}'],
    languageOptions: { globals: globals.browser },
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/server/**', 'node:*'], message: 'the console talks HTTP only' },
            {
              regex: '^(@contract|zod(/.*)?|(.*/)?contract(/(?!audit-actions$).*)?)$',
              allowTypeImports: true,
              message:
                "the console takes the contract's types only: import type … from '@contract'",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },
  prettier,
);
