// An OpenAI Agents SDK agent with hostedMcpTool naming an MCP server of
// its own (serverUrl), as it names OpenAI's hosted MCP servers:
// toolstream connects to the server and runs the agent's call of its
// tool. requireApproval "always" ends toolstream's first response on an
// mcp_approval_request; the SDK asks onApproval and sends the whole
// conversation back with its mcp_approval_response, and the call runs.
//
//   node agents-mcp.mjs
//
// The proxy must list the server's host in auth.mcp_allow
// (docs/request-mcp-servers.md). TOOLSTREAM_BASE_URL, TOOLSTREAM_KEY and
// TOOLSTREAM_MODEL point it at a deployment; MCP_URL and MCP_TOKEN name
// the MCP server and its token.
import OpenAI from 'openai';
import { Agent, OpenAIResponsesModel, hostedMcpTool, run, setTracingDisabled } from '@openai/agents';

const baseURL = process.env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080/v1';
const apiKey = process.env.TOOLSTREAM_KEY ?? 'unused-on-loopback';
setTracingDisabled(true); // traces would go to OpenAI's platform

const agent = new Agent({
  name: 'Support',
  instructions: "You answer questions about the user's orders.",
  model: new OpenAIResponsesModel(new OpenAI({ baseURL, apiKey }), process.env.TOOLSTREAM_MODEL ?? 'small-model'),
  tools: [
    hostedMcpTool({
      serverLabel: 'shop',
      serverUrl: process.env.MCP_URL ?? 'http://127.0.0.1:8931/mcp',
      authorization: process.env.MCP_TOKEN,
      allowedTools: ['lookup_order'],
      requireApproval: 'always',
      onApproval: async (_context, request) => {
        const { name, arguments: args } = request.rawItem.providerData;
        console.log(`  approval asked: ${name} ${args} → approved`);
        return { approve: true };
      },
    }),
  ],
});

const result = await run(agent, 'Where is my order 42?');
for (const item of result.newItems) {
  const call = item.rawItem.providerData ?? {};
  if (item.rawItem.type === 'hosted_tool_call' && call.type === 'mcp_call') {
    console.log(`▸ ${call.name} ${call.status === 'completed' ? '✓' : '✗'} [${call.server_label}] → ${item.rawItem.output ?? call.error}`);
  }
}
console.log(`── final: ${result.finalOutput} · ${result.rawResponses.length} responses`);
