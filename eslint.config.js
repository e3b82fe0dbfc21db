// ESLint for the codebase as it is: typescript-eslint's recommended rules, with the few
// that fight deliberate patterns here turned off, each with its reason.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  // wasm/charpass is AssemblyScript (decorators, its own built-ins), compiled by asc, not tsc.
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'wasm/charpass/**', 'test-artifacts/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Unused names are errors, except `_`-prefixed ones kept for a signature or a destructuring omit.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Parsers and sanitisers match control characters on purpose (stripping NULs from text, refusing them in headers).
      'no-control-regex': 'off',
      // `cond && act()` and `a ? f() : g()` as statements are idioms here, not mistakes.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      // An empty catch says "this failure does not matter" (best-effort clean-up); other empty blocks are errors.
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // The engines' JavaScript bindings are untyped (LibreDWG and GDAL in WASM, dxf-parser,
    // msgreader, hyparquet's schema tree): these files walk their objects as they come.
    files: ['src/formats/cad/**', 'src/formats/gis/**', 'src/formats/email/msg.ts', 'src/formats/parquet/describe.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests and benches read artifacts and API answers whose shape they assert on; typing every
    // fixture would add noise, not safety.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
