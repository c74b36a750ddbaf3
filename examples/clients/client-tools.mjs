// The client's own tool, run by the client's SDK, against a model that has
// no native tool calling. toolstream teaches the tool in the prompt (text
// mode), hands the model's text call to the SDK as a native tool call, and
// feeds the SDK's result back to the model in the frame it was taught.
// Once with the openai SDK's runTools, once with the AI SDK's streamText
// and a tool with execute.
//
//   node client-tools.mjs      # against an upstream with tool_mode: text
//
// TOOLSTREAM_BASE_URL, TOOLSTREAM_KEY and TOOLSTREAM_MODEL point it at a
// deployment.
import OpenAI from 'openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';

const baseURL = process.env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080/v1';
const apiKey = process.env.TOOLSTREAM_KEY ?? 'unused-on-loopback';
const model = process.env.TOOLSTREAM_MODEL ?? 'small-model';
const question = 'Where am I?';
const description = "The user's current city.";
const parameters = { type: 'object', properties: { precise: { type: 'boolean' } } };

// The one function both SDKs run, counted so the output shows it ran.
let runs = 0;
function getLocation(args) {
  runs++;
  console.log(`  get_location(${JSON.stringify(args)}) run by the client`);
  return { city: 'Paris' };
}

console.log('openai runTools:');
const openai = new OpenAI({ baseURL, apiKey });
const runner = openai.chat.completions.runTools({
  model,
  stream: true,
  messages: [{ role: 'user', content: question }],
  tools: [{ type: 'function', function: { name: 'get_location', description, parameters, parse: JSON.parse, function: getLocation } }],
});
runner.on('content', (delta) => process.stdout.write(delta));
await runner.finalContent();
process.stdout.write('\n');

console.log('AI SDK streamText:');
const provider = createOpenAICompatible({ name: 'toolstream', baseURL, apiKey });
const result = streamText({
  model: provider(model),
  prompt: question,
  tools: { get_location: tool({ description, inputSchema: jsonSchema(parameters), execute: async (args) => getLocation(args) }) },
  stopWhen: stepCountIs(3),
});
for await (const part of result.fullStream) {
  if (part.type === 'text-delta') process.stdout.write(part.text);
  if (part.type === 'error') throw part.error;
}
process.stdout.write('\n');
console.log(`── the client ran get_location ${runs} times`);
