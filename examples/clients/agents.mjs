// An OpenAI Agents SDK agent served by toolstream through the Responses
// API: the agent has a function tool of its own, get_location, which the
// SDK runs when the model calls it; toolstream runs its server tool
// (create_task) inside the model's turn and reports it as an mcp_call
// item, which the agent run shows as a hosted tool call. The SDK sends
// the whole conversation back on its next request, that mcp_call item
// included: toolstream restores the call and its result from the stored
// response, and does not run it again.
//
//   node agents.mjs      # against toolstream serve, an upstream and create_task
//
// TOOLSTREAM_BASE_URL, TOOLSTREAM_KEY and TOOLSTREAM_MODEL point it at a
// deployment.
import OpenAI from 'openai';
import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';

const baseURL = process.env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080/v1';
const apiKey = process.env.TOOLSTREAM_KEY ?? 'unused-on-loopback';
const modelName = process.env.TOOLSTREAM_MODEL ?? 'small-model';
setTracingDisabled(true); // traces would go to OpenAI's platform

let runs = 0;
const getLocation = tool({
  name: 'get_location',
  description: "The user's current city.",
  parameters: z.object({}),
  execute: async () => {
    runs++;
    console.log('  get_location({}) run by the agent');
    return 'Paris';
  },
});

const agent = new Agent({
  name: 'Planner',
  instructions: "You manage the user's task board.",
  model: new OpenAIResponsesModel(new OpenAI({ baseURL, apiKey }), modelName),
  tools: [getLocation],
});

const result = await run(agent, 'Add a gym session near me for tomorrow.', { stream: true });
// The text streams as it comes, a line per message item; the run's items
// (tool calls and their outputs) are reported once each model answer is
// complete.
let line = false;
let item;
for await (const ev of result) {
  if (ev.type === 'raw_model_stream_event' && ev.data.type === 'output_text_delta') {
    let text = ev.data.delta;
    if (!line || ev.data.itemId !== item) {
      // A message after the first opens with a paragraph break (so that
      // output_text reads right); a line per message has no use for it.
      text = text.replace(/^\n+/, '');
      if (!text) continue;
      if (line) process.stdout.write('\n');
      process.stdout.write('assistant ▸ ');
    }
    process.stdout.write(text);
    line = true;
    item = ev.data.itemId;
    continue;
  }
  if (ev.type !== 'run_item_stream_event') continue;
  if (line) process.stdout.write('\n');
  line = false;
  const raw = ev.item.rawItem;
  if (ev.name === 'tool_called' && raw.type === 'hosted_tool_call') {
    const call = raw.providerData ?? {};
    console.log(`▸ ${call.name} ${call.status === 'completed' ? '✓' : '✗'} [${call.server_label}] → ${raw.output ?? call.error}`);
  }
}
await result.completed;
if (line) process.stdout.write('\n');
const responses = result.rawResponses;
const tokens = (k) => responses.reduce((n, r) => n + r.usage[k], 0);
console.log(`── final: ${result.finalOutput}`);
console.log(
  `── the agent ran get_location ${runs} times · ${responses.length} responses · ` +
    `${tokens('inputTokens')} in + ${tokens('outputTokens')} out`,
);
