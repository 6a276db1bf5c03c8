import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/src/gen/**',
      '**/*.js',
      '**/*.mjs',
      // bench/lib is the benchmarks' shared, linted code (CommonJS, type-checked through JSDoc), and
      // so is `make bench` (bench/run.js and its phases in bench/send-path); the rest of bench/ is scripts.
      'bench/*.js',
      'bench/*/*.js',
      'bench/test/**',
      '!bench/lib/*.js',
      '!bench/send-path/*.js',
      '!bench/run.js',
      // Lint fixtures that break a rule on purpose (an import cycle): tools/repo-checks/test/import-cycle.test.ts
      // lints them with this configuration, its ignores aside.
      'tools/repo-checks/test/fixtures/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver': { node: { extensions: ['.ts', '.js'] } },
      // The resolver finds `./x` as x.ts, but import-x then reads a module only when its extension is
      // one of `import-x/extensions` (by default .js, .mjs, .cjs): every .ts file was skipped, so
      // no-cycle never followed an import and let every circle through. It reads .ts files with
      // typescript-eslint's parser.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      'import-x/no-cycle': ['error', { maxDepth: 10, ignoreExternal: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['bench/lib/*.js', 'bench/send-path/*.js', 'bench/run.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        __dirname: 'readonly',
      },
    },
  },
  {
    files: ['**/test/**/*.ts', '**/*.test.ts'],
    rules: { '@typescript-eslint/unbound-method': 'off' },
  },
);
