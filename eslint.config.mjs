import tseslint from 'typescript-eslint';

const VSCODE_BAN = { name: 'vscode', message: 'src/core must not depend on vscode; put VS Code code in src/ui.' };

/**
 * The folders of src/core and the folders each may import, lowest first:
 * base ← config ← receiver ← connection ← requestor ← view ← api; base ← forms, sampling.
 */
const CORE_LAYERS = {
  base: [],
  config: ['base'],
  receiver: ['base', 'config'],
  connection: ['base', 'config', 'receiver'],
  requestor: ['base', 'config', 'receiver', 'connection'],
  view: ['base', 'config', 'receiver', 'connection', 'requestor'],
  api: ['base', 'config', 'receiver', 'connection', 'requestor', 'view'],
  agent: ['base', 'config', 'receiver', 'connection', 'requestor'],
  forms: ['base'],
  sampling: ['base'],
};

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
      'no-restricted-imports': ['error', { paths: [VSCODE_BAN] }],
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']", message: 'src/core must not depend on vscode.' }],
    },
  },
  // Folders of src/core import each other only downward (src/core/README.md).
  ...Object.entries(CORE_LAYERS).map(([folder, allowed]) => {
    const forbidden = [...Object.keys(CORE_LAYERS).filter((f) => f !== folder && !allowed.includes(f)), 'ui', 'headless'];
    return {
      files: [`src/core/${folder}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: [VSCODE_BAN],
            patterns: [
              {
                regex: `^(\\.\\./)+(core/)?(${forbidden.join('|')})/`,
                message: `src/core/${folder} may import ${allowed.length ? `only ${allowed.map((f) => `src/core/${f}`).join(', ')}` : 'no other folder of src/core'} (layers: src/core/README.md).`,
              },
            ],
          },
        ],
      },
    };
  }),
  {
    // Server and workspace text reaches notifications and tooltips; `[x](command:…)` there is a
    // clickable command. Notifications go through src/ui/notify.ts (plain text), Markdown
    // through src/ui/markdown.ts (untrusted, no HTML).
    files: ['src/ui/**/*.ts', 'src/extension.ts'],
    ignores: ['src/ui/notify.ts', 'src/ui/markdown.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name=/^show(Information|Warning|Error)Message$/]",
          message: 'Use showInfo/showWarning/showError from src/ui/notify.ts: they keep server text from becoming command links.',
        },
        {
          selector: "NewExpression[callee.property.name='MarkdownString'], NewExpression[callee.name='MarkdownString']",
          message: 'Use untrustedMarkdown() from src/ui/markdown.ts (not trusted, no HTML) and escape server text with src/core/base/escape.ts.',
        },
      ],
    },
  },
);
