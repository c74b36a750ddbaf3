// Anthropic's SDK with an MCP server of the request's own, as Anthropic's
// MCP connector takes it: an mcp_servers entry and its mcp_toolset.
// toolstream connects to the server, offers the toolset's tools to the
// model, and runs its call; the answer holds the call as mcp_tool_use and
// mcp_tool_result blocks naming the server. Messages has no approval
// field: here the proxy's policies hold the call, and this script
// approves it through /v1/actions while the stream waits, as an approval
// UI would.
//
//   node messages-mcp.mjs
//
// The proxy must list the server's host in auth.mcp_allow
// (docs/request-mcp-servers.md). TOOLSTREAM_BASE_URL (with or without
// /v1), TOOLSTREAM_KEY and TOOLSTREAM_MODEL point it at a deployment;
// MCP_URL and MCP_TOKEN name the MCP server and its token.
import Anthropic from '@anthropic-ai/sdk';

const base = (process.env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/v1\/?$/, '');
const apiKey = process.env.TOOLSTREAM_KEY ?? 'unused-on-loopback';
const client = new Anthropic({ baseURL: base, apiKey });

// approve decides every call waiting in /v1/actions until stopped.
let approving = true;
const approve = (async () => {
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  while (approving) {
    const pending = await (await fetch(`${base}/v1/actions?status=pending`, { headers })).json();
    for (const a of pending.data ?? []) {
      console.log(`  approval asked: ${a.tool} ${JSON.stringify(a.arguments)} → approved`);
      await fetch(`${base}/v1/actions/${a.id}/approve`, { method: 'POST', headers, body: '{}' });
    }
    await new Promise((r) => setTimeout(r, 50));
  }
})();

const stream = client.beta.messages.stream({
  model: process.env.TOOLSTREAM_MODEL ?? 'small-model',
  max_tokens: 1024,
  betas: ['mcp-client-2025-11-20'],
  messages: [{ role: 'user', content: 'Where is my order 42?' }],
  mcp_servers: [
    { type: 'url', url: process.env.MCP_URL ?? 'http://127.0.0.1:8931/mcp', name: 'shop', authorization_token: process.env.MCP_TOKEN },
  ],
  tools: [{ type: 'mcp_toolset', mcp_server_name: 'shop', default_config: { enabled: false }, configs: { lookup_order: { enabled: true } } }],
});
const message = await stream.finalMessage();
approving = false;
await approve;

for (const b of message.content) {
  if (b.type === 'mcp_tool_use') console.log(`▸ ${b.name} [${b.server_name}] ${JSON.stringify(b.input)}`);
  if (b.type === 'mcp_tool_result') console.log(`  ${b.is_error ? '✗' : '✓'} → ${b.content.map((c) => c.text).join('')}`);
  if (b.type === 'text') console.log(`assistant ▸ ${b.text}`);
}
console.log(`── stop_reason ${message.stop_reason} · ${message.content.map((b) => b.type).join(',')}`);
