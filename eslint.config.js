// ESLint (flat config) with typescript-eslint; formatting is Prettier's (npm run format), so the
// stylistic rules ESLint would otherwise bring are turned off by eslint-config-prettier.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'oclif.manifest.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: globals.node,
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'error',
    },
  },
  {
    // The type check (tsconfig.check.json) covers these with noUnusedLocals and noUnusedParameters
    // (stricter on locals: an unused `const _x` is an error there); the rule repeated it at 40% of
    // ESLint's rule time.
    files: ['{src,test,bench,scripts}/**/*.{ts,mts,cts}'],
    rules: { '@typescript-eslint/no-unused-vars': 'off' },
  },
  {
    // Tests, benchmarks and scripts print their tables and talk to test doubles loosely typed.
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
