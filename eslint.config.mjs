import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'test-results/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // The protocol core runs in plain Node (tests, headless client): it must never import `vscode`.
    files: ['src/core/**/*.ts', 'src/headless/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/core must not depend on vscode; put VS Code code in src/ui.' }] }],
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']", message: 'src/core must not depend on vscode.' }],
    },
  },
);
