// Smoke checks of the demo server's 2026-07-28 mode (`--revision 2026-07-28`), run by smoke.ts
// (`npm run smoke:demo`, or `--only 2026`), over stdio and stateless Streamable HTTP: a plain
// SDK v2 client negotiates the revision and answers the input_required tools; the bare wire client
// (rawClient2026.ts) checks what an SDK client would hide: the sealed requestState, the Tasks
// extension's methods and errors, its routing headers, and subscriptions/listen for task ids.
import { spawn } from 'node:child_process';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { httpClient2026, stdioClient2026, type Json, type RawClient2026 } from './rawClient2026.js';

type Check = (name: string, fn: () => Promise<string>) => Promise<void>;

function assert(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(`assertion failed: ${message}`);
}

const textOf = (r: Json | undefined) => ((r?.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

/** An SDK v2 client that answers every form and sampling request, counting them. */
function sdkClient(): { client: Client; asked: string[] } {
  const asked: string[] = [];
  const client = new Client({ name: 'smoke-2026', version: '0' }, { capabilities: { sampling: {}, elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
  client.setRequestHandler('elicitation/create', async (req) => {
    const message = String((req.params as { message?: unknown }).message);
    asked.push(`form: ${message}`);
    const content: Record<string, string> = message.includes('haiku') ? { topic: 'autumn rain', mood: 'calm' } : message.includes('Name') ? { name: 'lantern' } : { license: 'MIT' };
    return { action: 'accept', content };
  });
  client.setRequestHandler('sampling/createMessage', async () => {
    asked.push('sampling');
    return { role: 'assistant', content: { type: 'text', text: 'drops on the still pond' }, model: 'smoke-model' };
  });
  return { client, asked };
}

async function suite(label: string, check: Check, sdkTransport: () => Transport, raw: () => RawClient2026, http: boolean): Promise<void> {
  await check(`${label}: an SDK v2 client negotiates 2026-07-28 (server/discover) and sees the Tasks extension`, async () => {
    const { client } = sdkClient();
    await client.connect(sdkTransport());
    try {
      assert(client.getNegotiatedProtocolVersion() === '2026-07-28', `negotiated ${client.getNegotiatedProtocolVersion()}`);
      assert(client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/tasks'], 'declares io.modelcontextprotocol/tasks');
      return `MCP ${client.getNegotiatedProtocolVersion()}, ${(await client.listTools()).tools.length} tools`;
    } finally {
      await client.close();
    }
  });

  await check(`${label}: write_haiku (a form, then sampling) and new_project (three requests in one round) through the SDK's input_required rounds`, async () => {
    const { client, asked } = sdkClient();
    await client.connect(sdkTransport());
    try {
      const haiku = textOf((await client.callTool({ name: 'write_haiku', arguments: {} })) as Json);
      assert(haiku.includes('calm haiku about autumn rain') && haiku.includes('drops on the still pond'), haiku);
      assert(asked.join('|') === 'form: What should the haiku be about?|sampling', asked.join('|'));
      asked.length = 0;
      const project = textOf((await client.callTool({ name: 'new_project', arguments: {} })) as Json);
      assert(project === 'Project lantern (MIT): drops on the still pond', project);
      assert(asked.length === 3, `three requests answered: ${asked.join('|')}`);
      return `${haiku.split('\n')[0]} / ${project}`;
    } finally {
      await client.close();
    }
  });

  const c = raw();
  try {
    await check(`${label}: a requestState changed by the client is refused (-32602); the untouched one is accepted`, async () => {
      const first = await c.request('tools/call', { name: 'write_haiku', arguments: {} });
      assert(first.result?.resultType === 'input_required' && typeof first.result.requestState === 'string', JSON.stringify(first));
      const state = first.result.requestState as string;
      const answer = { topic: { action: 'accept', content: { topic: 'snow', mood: 'wistful' } } };
      const tampered = await c.request('tools/call', { name: 'write_haiku', arguments: {}, inputResponses: answer, requestState: `${state.slice(0, -2)}AA` });
      assert(tampered.error?.code === -32602, `tampered: ${JSON.stringify(tampered)}`);
      const untouched = await c.request('tools/call', { name: 'write_haiku', arguments: {}, inputResponses: answer, requestState: state });
      assert(untouched.result?.resultType === 'input_required' && 'poem' in (untouched.result.inputRequests as Json), JSON.stringify(untouched));
      return `tampered → ${tampered.error.code}; untouched → the sampling round`;
    });

    await check(`${label}: Tasks extension: tools/call answers a task; -32021 without the extension${http ? ' (HTTP 400)' : ''}`, async () => {
      const refused = await c.request('tools/call', { name: 'ext_count', arguments: { steps: 2, stepMs: 20 } }, { declareTasks: false });
      assert(refused.error?.code === -32021, JSON.stringify(refused));
      if (http) assert(refused.status === 400, `status ${refused.status}`);
      const created = await c.request('tools/call', { name: 'ext_count', arguments: { steps: 2, stepMs: 20 } });
      assert(created.result?.resultType === 'task' && typeof created.result.taskId === 'string', JSON.stringify(created));
      return `task ${String(created.result.taskId).slice(0, 8)}…`;
    });

    await check(`${label}: subscriptions/listen for a task: acknowledged, then notifications/tasks through tasks/update to the inline result`, async () => {
      const created = await c.request('tools/call', { name: 'ext_ask_name', arguments: {} });
      const taskId = created.result?.taskId as string;
      const stream = await c.listen([taskId, 'no-such-task']);
      try {
        const ack = await stream.next((m) => m.method === 'notifications/subscriptions/acknowledged');
        assert(JSON.stringify((ack.params as Json).notifications) === JSON.stringify({ taskIds: [taskId] }), `honored only the known task: ${JSON.stringify(ack)}`);
        const waiting = await stream.next((m) => (m.params as Json | undefined)?.status === 'input_required');
        assert((waiting.params as { inputRequests?: Json }).inputRequests?.name, JSON.stringify(waiting));
        const updated = await c.request('tasks/update', { taskId, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } });
        assert(updated.result && !updated.error, JSON.stringify(updated));
        const done = await stream.next((m) => (m.params as Json | undefined)?.status === 'completed');
        assert(textOf((done.params as Json).result as Json) === 'Hello, Ada!', JSON.stringify(done));
        const got = await c.request('tasks/get', { taskId });
        assert(got.result?.status === 'completed' && textOf(got.result.result as Json) === 'Hello, Ada!', JSON.stringify(got));
        return `${stream.messages.length} messages on the stream`;
      } finally {
        stream.close();
      }
    });

    await check(`${label}: tasks/cancel ends a task cancelled; tasks/get of an unknown task is -32602`, async () => {
      const created = await c.request('tools/call', { name: 'ext_count', arguments: { steps: 100, stepMs: 100 } });
      const taskId = created.result?.taskId as string;
      const cancelled = await c.request('tasks/cancel', { taskId });
      assert(cancelled.result && !cancelled.error, JSON.stringify(cancelled));
      const got = await c.request('tasks/get', { taskId });
      assert(got.result?.status === 'cancelled', JSON.stringify(got));
      const unknown = await c.request('tasks/get', { taskId: 'no-such-task' });
      assert(unknown.error?.code === -32602, JSON.stringify(unknown));
      return 'cancelled; unknown → -32602';
    });

    if (http) {
      await check(`${label}: tasks/get without Mcp-Name, or with another task's, is refused (400, -32020)`, async () => {
        const created = await c.request('tools/call', { name: 'ext_count', arguments: { steps: 2, stepMs: 20 } });
        const taskId = created.result?.taskId as string;
        const missing = await c.request('tasks/get', { taskId }, { headers: { 'mcp-name': undefined } });
        const wrong = await c.request('tasks/get', { taskId }, { headers: { 'mcp-name': 'another-task' } });
        assert(missing.status === 400 && missing.error?.code === -32020, JSON.stringify(missing));
        assert(wrong.status === 400 && wrong.error?.code === -32020, JSON.stringify(wrong));
        return `${missing.status}/${missing.error.code} and ${wrong.status}/${wrong.error.code}`;
      });
    }
  } finally {
    await c.close();
  }
}

/** Runs the 2026-07-28 checks against `serverJs` over stdio, then over HTTP. */
export async function smoke2026(check: Check, serverJs: string, env: NodeJS.ProcessEnv, verbose: boolean): Promise<void> {
  const args = ['--revision', '2026-07-28'];
  await suite('2026 stdio', check, () => new StdioClientTransport({ command: process.execPath, args: [serverJs, ...args], env: env as Record<string, string>, stderr: verbose ? 'inherit' : 'ignore' }), () => stdioClient2026(serverJs, args, env), false);

  const child = spawn(process.execPath, [serverJs, ...args, '--http', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`no "listening on" line: ${err}`)), 10_000);
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (verbose) process.stderr.write(d);
        const m = /listening on (\S+)/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    await suite('2026 http', check, () => new StreamableHTTPClientTransport(new URL(url)), () => httpClient2026(url), true);
  } finally {
    child.kill('SIGTERM');
  }
}
