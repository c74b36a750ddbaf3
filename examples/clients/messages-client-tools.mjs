// The client's own tool through Anthropic's SDK (@anthropic-ai/sdk) on
// toolstream's /v1/messages, against a model that has no native tool
// calling: toolstream teaches the tool in the prompt, hands the model's
// text call to the SDK as a tool_use block (stop_reason tool_use), and
// feeds the SDK's tool_result back to the model in the frame it was taught.
// Once with messages.create, once with messages.stream() and
// finalMessage().
//
//   node messages-client-tools.mjs      # against an upstream with tool_mode: text
//
// TOOLSTREAM_BASE_URL (with or without /v1), TOOLSTREAM_KEY and
// TOOLSTREAM_MODEL point it at a deployment.
import Anthropic from '@anthropic-ai/sdk';

const baseURL = (process.env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/v1\/?$/, '');
const client = new Anthropic({ baseURL, apiKey: process.env.TOOLSTREAM_KEY ?? 'unused-on-loopback' });
const model = process.env.TOOLSTREAM_MODEL ?? 'small-model';
const tools = [{
  name: 'get_location',
  description: "The user's current city.",
  input_schema: { type: 'object', properties: { precise: { type: 'boolean' } } },
}];

// The one function the SDK's caller runs, counted so the output shows it ran.
let runs = 0;
function getLocation(input) {
  runs++;
  console.log(`  get_location(${JSON.stringify(input)}) run by the client (${this})`);
  return { city: 'Paris' };
}

// converse sends the question, runs each tool_use the answer asks for and
// sends its tool_result back, until the model answers without tools.
async function converse(label, send) {
  console.log(`${label}:`);
  const messages = [{ role: 'user', content: 'Where am I?' }];
  for (let i = 0; i < 3; i++) {
    const msg = await send({ model, max_tokens: 1024, tools, messages });
    messages.push({ role: 'assistant', content: msg.content });
    const uses = msg.content.filter((b) => b.type === 'tool_use');
    if (msg.stop_reason !== 'tool_use') {
      console.log(msg.content.filter((b) => b.type === 'text').map((b) => b.text).join(''));
      console.log(`  stop_reason ${msg.stop_reason}`);
      return;
    }
    messages.push({
      role: 'user',
      content: uses.map((u) => ({
        type: 'tool_result',
        tool_use_id: u.id,
        content: JSON.stringify(getLocation.call(u.id, u.input)),
      })),
    });
  }
  throw new Error('the model kept calling tools');
}

await converse('messages.create', (body) => client.messages.create(body));
await converse('messages.stream', (body) => client.messages.stream(body).finalMessage());
console.log(`── the client ran get_location ${runs} times`);
