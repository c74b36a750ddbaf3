// The openai SDK's responses.create with an mcp tool naming an MCP server
// of the request's own, as with OpenAI's hosted MCP tools: toolstream
// connects to the server, lists its tools (mcp_list_tools), and runs the
// model's call of one (mcp_call). With require_approval "always" the
// first response ends on an mcp_approval_request, and the next request
// answers it with an mcp_approval_response; the call then runs and the
// turn goes on in that response.
//
//   node responses-mcp.mjs
//
// The proxy must list the server's host in auth.mcp_allow
// (docs/request-mcp-servers.md). TOOLSTREAM_BASE_URL, TOOLSTREAM_KEY and
// TOOLSTREAM_MODEL point it at a deployment; MCP_URL and MCP_TOKEN name
// the MCP server and its token.
import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: process.env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080/v1',
  apiKey: process.env.TOOLSTREAM_KEY ?? 'unused-on-loopback',
});
const model = process.env.TOOLSTREAM_MODEL ?? 'small-model';
const tools = [
  {
    type: 'mcp',
    server_label: 'shop',
    server_url: process.env.MCP_URL ?? 'http://127.0.0.1:8931/mcp',
    authorization: process.env.MCP_TOKEN, // sent to that server only
    allowed_tools: ['lookup_order'],
    require_approval: 'always',
  },
];

const show = (r) => {
  for (const item of r.output) {
    switch (item.type) {
      case 'mcp_list_tools':
        console.log(`  [${item.server_label}] lists ${item.tools.map((t) => t.name).join(', ')}`);
        break;
      case 'mcp_approval_request':
        console.log(`  approval asked: [${item.server_label}] ${item.name} ${item.arguments}`);
        break;
      case 'mcp_call':
        console.log(`▸ ${item.name} ${item.error ? '✗' : '✓'} [${item.server_label}] ${item.arguments} → ${item.output ?? item.error}`);
        break;
      case 'message':
        console.log(`assistant ▸ ${item.content.map((c) => c.text).join('')}`);
        break;
    }
  }
  console.log(`── ${r.status} · output ${r.output.map((i) => i.type).join(',')}`);
};

const first = await client.responses.create({ model, input: 'Where is my order 42?', tools });
show(first);
const ask = first.output.find((i) => i.type === 'mcp_approval_request');
if (ask) {
  const second = await client.responses.create({
    model,
    tools,
    previous_response_id: first.id,
    input: [{ type: 'mcp_approval_response', approval_request_id: ask.id, approve: true }],
  });
  show(second);
}
