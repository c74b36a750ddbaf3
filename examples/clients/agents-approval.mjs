// An OpenAI Agents SDK agent that approves toolstream's server tools the
// way OpenAI's hosted MCP tools are approved: hostedMcpTool with
// serverLabel "toolstream", requireApproval "always" and onApproval. A
// call of create_task ends toolstream's response with an
// mcp_approval_request item; the SDK asks onApproval, and sends the whole
// conversation back with its mcp_approval_response; toolstream runs the
// call (or tells the model it was denied, with the reason) and the turn
// goes on in that response. The agent runs twice: approved, then
// rejected.
//
//   node agents-approval.mjs      # against toolstream serve, an upstream and create_task
//
// TOOLSTREAM_BASE_URL, TOOLSTREAM_KEY and TOOLSTREAM_MODEL point it at a
// deployment.
import OpenAI from 'openai';
import { Agent, OpenAIResponsesModel, hostedMcpTool, run, setTracingDisabled } from '@openai/agents';

const baseURL = process.env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080/v1';
const apiKey = process.env.TOOLSTREAM_KEY ?? 'unused-on-loopback';
const modelName = process.env.TOOLSTREAM_MODEL ?? 'small-model';
setTracingDisabled(true); // traces would go to OpenAI's platform

let approve = true;
const agent = new Agent({
  name: 'Planner',
  instructions: "You manage the user's task board.",
  model: new OpenAIResponsesModel(new OpenAI({ baseURL, apiKey }), modelName),
  tools: [
    hostedMcpTool({
      serverLabel: 'toolstream', // toolstream's own server tools
      requireApproval: 'always',
      onApproval: async (_context, request) => {
        const { name, arguments: args } = request.rawItem.providerData;
        console.log(`  approval asked: ${name} ${args} → ${approve ? 'approved' : 'rejected'}`);
        return approve ? { approve: true } : { approve: false, reason: 'not this week' };
      },
    }),
  ],
});

for (const decision of [true, false]) {
  approve = decision;
  const result = await run(agent, 'Add a gym session for tomorrow.');
  for (const item of result.newItems) {
    const raw = item.rawItem;
    const call = raw.providerData ?? {};
    if (raw.type === 'hosted_tool_call' && call.type === 'mcp_call') {
      console.log(`▸ ${call.name} ${call.status === 'completed' ? '✓' : '✗'} [${call.server_label}] → ${raw.output ?? call.error}`);
    }
  }
  console.log(`── ${decision ? 'approved' : 'rejected'}: ${result.finalOutput} · ${result.rawResponses.length} responses`);
}
