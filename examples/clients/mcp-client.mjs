// toolstream as an MCP server, through the official MCP TypeScript SDK
// (@modelcontextprotocol/client), in either protocol revision: the key's
// tools listed, a webhook tool called, bad arguments read as an isError
// result, a tool outside the key's scope refused as unknown, a call held
// for approval (progress while it waits, approved through /v1/actions), a
// call denied by declining the client's own question (2025-11-25: an
// elicitation request of the server's; 2026-07-28: the call's
// input_required result, which the SDK answers through the same handler
// and retries), a slow call cancelled, and list_changed after an admin
// registers a tool.
//
//   node mcp-client.mjs KEY ADMIN_KEY WEBHOOK_URL [REVISION]
//
// REVISION is 2026-07-28 (stateless requests, the default) or 2025-11-25
// (a session). TOOLSTREAM_BASE_URL points it at the proxy (default
// http://127.0.0.1:8080); the tools are those of the test's config:
// create_task, approve_task (approval: always), slow_task, and
// delete_task outside the key's scope.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [key, adminKey, webhook, revision = '2026-07-28'] = process.argv.slice(2);
const base = process.env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080';
const auth = (k) => ({ Authorization: `Bearer ${k}` });
const stateless = revision >= '2026-07-28';

let onToolsChanged = () => {};
async function connect(k, { elicit } = {}) {
  const client = new Client({ name: 'toolstream-example', version: '1.0.0' }, {
    capabilities: elicit ? { elicitation: {} } : {},
    // A pin: that revision or an error, never a quiet fallback.
    versionNegotiation: stateless ? { mode: { pin: revision } } : { mode: 'legacy' },
    // The SDK follows list changes itself: unsolicited in a session, on a
    // subscriptions/listen stream it opens when stateless.
    listChanged: { tools: { onChanged: (err, tools) => onToolsChanged(err, tools) } },
  });
  if (elicit) client.setRequestHandler('elicitation/create', elicit);
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: auth(k) } });
  await client.connect(transport);
  return client;
}

// decide approves or denies the key's one pending action through
// /v1/actions.
async function decide(verb) {
  const list = await (await fetch(new URL('/v1/actions?status=pending', base), { headers: auth(key) })).json();
  const id = list.data[0].id;
  const res = await fetch(new URL(`/v1/actions/${id}/${verb}`, base), { method: 'POST', headers: auth(key) });
  console.log(`${verb}: ${res.status}`);
}

const text = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
const client = await connect(key);
console.log(`revision: ${client.getProtocolEra()}`);

const { tools } = await client.listTools();
console.log(`tools: ${tools.map((t) => t.name).join(', ')}`);

const ok = await client.callTool({ name: 'create_task', arguments: { title: 'milk', count: '2' } });
console.log(`create_task: isError ${ok.isError ?? false} · ${text(ok)}`);

const bad = await client.callTool({ name: 'create_task', arguments: { title: 'milk', count: 'many' } });
console.log(`bad arguments: isError ${bad.isError} · ${text(bad).split(':')[0]}`);

try {
  await client.callTool({ name: 'delete_task', arguments: {} });
  console.log('out of scope: answered');
} catch (err) {
  console.log(`out of scope: error ${err.code} · ${err.message}`);
}

// Approval: the first progress notification says the call waits; the
// key's own pending action is then approved through /v1/actions.
let approving;
const approved = await client.callTool({ name: 'approve_task', arguments: { id: '7' } }, {
  resetTimeoutOnProgress: true,
  onprogress: (p) => {
    if (approving) return;
    console.log(`progress: ${p.message}`);
    approving = decide('approve');
  },
});
await approving;
console.log(`approved call: isError ${approved.isError ?? false}`);

// A client that can answer elicitations is asked; its decline denies the
// call.
const asking = await connect(key, {
  elicit: async (req) => {
    console.log(`elicitation: ${req.params.message.split(' with ')[0]}`);
    return { action: 'decline' };
  },
});
const declined = await asking.callTool({ name: 'approve_task', arguments: { id: '8' } });
console.log(`declined call: isError ${declined.isError} · ${text(declined).split(':')[0]}`);
await asking.close();

// Cancellation: aborting ends the request (a session's client sends
// notifications/cancelled; a stateless one closes the response stream);
// the webhook's request is cancelled with it.
const abort = new AbortController();
setTimeout(() => abort.abort(), 1000);
try {
  await client.callTool({ name: 'slow_task', arguments: {} }, { signal: abort.signal });
  console.log('slow call: answered');
} catch (err) {
  console.log(`slow call: ${abort.signal.aborted ? 'cancelled' : err.message}`);
}

// list_changed: a tool registered at runtime reaches the client, which
// lists the tools again.
const changed = new Promise((resolve, reject) => {
  onToolsChanged = (err, list) => (err ? reject(err) : resolve(list));
});
const reg = await fetch(new URL('/admin/tools', base), {
  method: 'POST',
  headers: { ...auth(adminKey), 'Content-Type': 'application/json' },
  body: JSON.stringify({ name: 'rt_tool', description: 'A runtime tool.', webhook: { url: `${webhook}/rt_tool` } }),
});
console.log(`register: ${reg.status}`);
const after = await Promise.race([changed, new Promise((_, reject) => setTimeout(() => reject(new Error('no list_changed')), 10000))]);
console.log(`list_changed: ${after.map((t) => t.name).join(', ')}`);
await client.close();
