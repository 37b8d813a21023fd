import tseslint from 'typescript-eslint';

const VSCODE_BAN = { name: 'vscode', message: 'src/core must not depend on vscode; put VS Code code in src/ui.' };
/** The SDK v1 is a dev dependency (the bench's and tests' baseline, the demo server): the .vsix ships without it. */
const SDK_V1_BAN = { regex: '^@modelcontextprotocol/sdk(/|$)', message: 'The extension runs on the SDK v2 (@modelcontextprotocol/client, /core); the SDK v1 is a dev dependency for tests, the bench and the demo.' };

/**
 * The folders of src/core and the folders each may import, lowest first:
 * base ← config ← connection ← receiver ← requestor ← view ← api; base ← forms, sampling.
 * The connection is one connection: it imports neither the receiver nor the requestor, whose wire
 * sides install themselves on its clients (connection/clientSide.ts).
 */
const CORE_LAYERS = {
  base: [],
  config: ['base'],
  connection: ['base', 'config', 'serverHost'],
  serverHost: ['base'],
  receiver: ['base', 'config', 'connection'],
  requestor: ['base', 'config', 'receiver', 'connection'],
  view: ['base', 'config', 'receiver', 'connection', 'requestor'],
  api: ['base', 'config', 'receiver', 'connection', 'requestor', 'view'],
  agent: ['base', 'config', 'receiver', 'connection', 'requestor'],
  forms: ['base'],
  sampling: ['base'],
  startup: ['base'],
};

/**
 * User-visible text in src/ui goes through `vscode.l10n.t` (l10n/bundle.l10n.json, `npm run l10n:export`).
 * A string or template with words (codicons such as `$(sync~spin)` are not words) given directly — or
 * through `?:` / `??` / `||` — to a user-facing slot is an error: notify.ts calls and their `detail`,
 * `title` / `placeholder` / `placeHolder` / `prompt` properties (quick picks and inputs, progress,
 * prompts, command titles), `.label` / `.description` / `.tooltip` / `.text` / `.placeholder` /
 * `.title` / `.validationMessage` assignments and `x.y.name` (tree items, status-bar items, quick picks), and
 * `new vscode.TreeItem(label)`. Protocol text (statusMessage, McpError) is not in these slots.
 */
const WORDS = '/(^|[^\\w(~-])[A-Za-z]{2,}/';
const USER_TEXT_SLOTS = [
  "CallExpression[callee.name=/^show(Info|Warning|Error)$/]",
  "CallExpression[callee.name=/^show(Info|Warning|Error)$/] > ObjectExpression > Property[key.name='detail']",
  "Property[key.name=/^(title|placeholder|placeHolder|prompt)$/]",
  "AssignmentExpression[left.property.name=/^(label|description|tooltip|text|placeholder|title|validationMessage)$/]",
  // `item.name = …` of an object held in a field (a status-bar item), not `this.name` of an Error.
  "AssignmentExpression[left.property.name='name'][left.object.type='MemberExpression']",
  "NewExpression[callee.property.name='TreeItem']",
];
const L10N_RULES = USER_TEXT_SLOTS.flatMap((slot) =>
  ['', 'ConditionalExpression > ', 'ConditionalExpression > ConditionalExpression > ', 'LogicalExpression > '].flatMap((via) => [
    `${slot} > ${via}Literal[value=${WORDS}]`,
    `${slot} > ${via}TemplateLiteral > TemplateElement[value.raw=${WORDS}]`,
  ]),
).map((selector) => ({ selector, message: 'User-visible text goes through vscode.l10n.t(...) with placeholders (l10n/bundle.l10n.json; npm run l10n:export).' }));

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
      'no-restricted-imports': ['error', { paths: [VSCODE_BAN], patterns: [SDK_V1_BAN] }],
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']", message: 'src/core must not depend on vscode.' }],
    },
  },
  { files: ['src/ui/**/*.ts', 'src/extension.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [SDK_V1_BAN] }] } },
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
              SDK_V1_BAN,
            ],
          },
        ],
      },
    };
  }),
  {
    // Server and workspace text reaches notifications and tooltips; `[x](command:…)` there is a
    // clickable command. Notifications go through src/ui/adapters/notify.ts (plain text), Markdown
    // through src/ui/documents/markdown.ts (untrusted, no HTML).
    files: ['src/ui/**/*.ts', 'src/extension.ts'],
    ignores: ['src/ui/adapters/notify.ts', 'src/ui/documents/markdown.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name=/^show(Information|Warning|Error)Message$/]",
          message: 'Use showInfo/showWarning/showError from src/ui/adapters/notify.ts: they keep server text from becoming command links.',
        },
        {
          selector: "NewExpression[callee.property.name='MarkdownString'], NewExpression[callee.name='MarkdownString']",
          message: 'Use untrustedMarkdown() from src/ui/documents/markdown.ts (not trusted, no HTML) and escape server text with src/core/base/escape.ts.',
        },
        ...L10N_RULES,
      ],
    },
  },
);
