// One session of the TypeScript SDK's Client (@modelcontextprotocol/sdk,
// pinned in package.json) against one MCP server, printing a transcript
// of everything the server answered, as JSON on stdout. The Go test
// (sdk_test.go) runs it against server-everything directly and through
// `mcpvisor serve`, and compares the two transcripts field by field.
//
//   node sdk-session.mjs '{"command": "...", "args": [...], "env": {...}}'
//   node sdk-session.mjs '{"url": "http://127.0.0.1:PORT/mcp", "headers": {...}}'
//
// The transcript holds the server's messages as they arrived on the wire
// (before the SDK's schemas parse them), so key order and explicit falsy
// fields are what the server sent. Request ids are left out: the gateway
// numbers its own requests to the client.
//
// The client offers sampling and elicitation (form and URL) and answers
// server-everything's requests with fixed replies, so that the tools that
// send them (trigger-sampling-request, trigger-elicitation-request,
// trigger-url-elicitation) run to the end. It offers no roots and no tasks.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const spec = JSON.parse(process.argv[2]);

// What the client answers to the server's requests.
const samplingReply = { model: 'matrix-model', role: 'assistant', content: { type: 'text', text: 'pong' }, stopReason: 'endTurn' };
const formReply = { action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } };
const urlReply = { action: 'accept' };

// wire records every message the server sends, in arrival order; each of
// waiters is called with every message that arrives.
const wire = [];
const waiters = new Set();
function tap(transport) {
  let handler;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (h) => {
      handler = h && ((message, extra) => {
        wire.push(message);
        for (const w of [...waiters]) w(message);
        h(message, extra);
      });
    },
  });
  return transport;
}

function newTransport() {
  if (spec.url) {
    return new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers: spec.headers || {} } });
  }
  return new StdioClientTransport({ command: spec.command, args: spec.args || [], env: { ...process.env, ...(spec.env || {}) }, stderr: 'inherit' });
}

const client = new Client(
  { name: 'mcpvisor-matrix', version: '1.0.0' },
  { capabilities: { sampling: {}, elicitation: { form: {}, url: {} } } },
);
client.setRequestHandler(CreateMessageRequestSchema, async () => samplingReply);
client.setRequestHandler(ElicitRequestSchema, async (req) => (req.params.mode === 'url' ? urlReply : formReply));

const transcript = [];

// step runs op and records what the server sent meanwhile: the responses
// to the client's requests (without their ids), the requests it sent the
// client (method and params) and the notifications whose method keep
// selects. An error the SDK raised is recorded too (sdkError).
async function step(name, op, keep = () => false) {
  const mark = wire.length;
  let sdkError;
  try {
    await op();
  } catch (err) {
    sdkError = String(err && err.message ? err.message : err);
  }
  const sent = wire.slice(mark);
  const entry = { step: name };
  const responses = sent.filter((m) => m.id !== undefined && m.method === undefined).map(({ id, jsonrpc, ...rest }) => rest);
  entry.responses = responses;
  const requests = sent.filter((m) => m.id !== undefined && m.method !== undefined).map(({ method, params }) => ({ method, params }));
  if (requests.length) entry.serverRequests = requests;
  const notes = sent.filter((m) => m.id === undefined && keep(m.method)).map(({ method, params }) => ({ method, params }));
  if (notes.length) entry.notifications = notes;
  if (sdkError !== undefined) entry.sdkError = sdkError;
  transcript.push(entry);
}

// waitFor resolves when the server has sent a message matching pred, and
// fails after ms.
function waitFor(pred, what, ms = 15000) {
  if (wire.some(pred)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      waiters.delete(check);
      clearTimeout(timer);
    };
    const check = (m) => {
      if (pred(m)) {
        done();
        resolve();
      }
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no ${what} within ${ms} ms`));
    }, ms);
    waiters.add(check);
  });
}

const call = (name, args) => () => client.callTool({ name, arguments: args });
const progress = (m) => m === 'notifications/progress';

await step('initialize', () => client.connect(tap(newTransport())));
await step('tools/list', () => client.listTools());
await step('prompts/list', () => client.listPrompts());
await step('resources/list', () => client.listResources());
await step('resources/templates/list', () => client.listResourceTemplates());

await step('call echo', call('echo', { message: 'hello' }));
await step('call get-sum', call('get-sum', { a: 2, b: 3 }));
await step('call get-sum, wrong arguments', call('get-sum', { a: 'two' }));
await step('call get-structured-content', call('get-structured-content', { location: 'New York' }));
await step('call get-annotated-message', call('get-annotated-message', { messageType: 'error', includeImage: true }));
await step('call get-tiny-image', call('get-tiny-image', {}));
await step('call get-resource-links', call('get-resource-links', { count: 2 }));
await step('call get-resource-reference', call('get-resource-reference', { resourceType: 'Text', resourceId: 2 }));

await step('get simple-prompt', () => client.getPrompt({ name: 'simple-prompt' }));
await step('get args-prompt', () => client.getPrompt({ name: 'args-prompt', arguments: { city: 'Paris', state: 'IDF' } }));
await step('get args-prompt, argument missing', () => client.getPrompt({ name: 'args-prompt', arguments: {} }));
await step('get resource-prompt', () => client.getPrompt({ name: 'resource-prompt', arguments: { resourceType: 'Text', resourceId: '1' } }));
await step('complete completable-prompt', () =>
  client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } }));

await step('read a static text resource', () => client.readResource({ uri: 'demo://resource/static/document/architecture.md' }));
await step('read a dynamic text resource', () => client.readResource({ uri: 'demo://resource/dynamic/text/1' }));
await step('read a dynamic blob resource', () => client.readResource({ uri: 'demo://resource/dynamic/blob/2' }));
await step('read an unknown resource', () => client.readResource({ uri: 'demo://resource/static/document/no-such-file.md' }));

// Subscribe, then have the server send its simulated update (it sends one
// at once when toggled on), then turn the updates off and unsubscribe.
const watched = 'demo://resource/dynamic/text/1';
const updated = (m) => m.method === 'notifications/resources/updated' && m.params && m.params.uri === watched;
await step('subscribe', () => client.subscribeResource({ uri: watched }));
await step('updates on', async () => {
  await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
  await waitFor(updated, `notifications/resources/updated for ${watched}`);
}, (m) => m === 'notifications/resources/updated');
await step('updates off', call('toggle-subscriber-updates', {}));
await step('unsubscribe', () => client.unsubscribeResource({ uri: watched }));

await step('progress', () =>
  client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.4, steps: 2 } }, undefined, { onprogress: () => {} }), progress);
await step('sampling', call('trigger-sampling-request', { prompt: 'ping', maxTokens: 10 }));
await step('elicitation (form)', call('trigger-elicitation-request', {}));
await step('elicitation (url)', call('trigger-url-elicitation', { url: 'https://example.com/verify', elicitationId: 'matrix-1' }));

await client.close();
process.stdout.write(JSON.stringify(transcript, null, 1) + '\n');
