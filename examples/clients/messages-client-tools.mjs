// The client's own tool through Anthropic's SDK (@anthropic-ai/sdk) on
// toolstream's /v1/messages: the model's call reaches the SDK as a
// tool_use block (stop_reason tool_use), and the SDK's tool_result goes
// back to the model. A model with native tool calling gets it as a role
// "tool" message; with one that has none (tool_mode: text), toolstream
// teaches the tool in the prompt, reads the model's call from its text and
// feeds the result back in the frame it taught.
// Once with messages.create, once with messages.stream() and
// finalMessage(). With a server tool configured too (toolstream serve with
// create_task), an answer can hold its calls as mcp_tool_use and
// mcp_tool_result blocks before the tool_use: the script sends them back
// with its tool_result, and toolstream restores what they stand for.
//
//   node messages-client-tools.mjs ["question"]   # default "Where am I?"
//
// TOOLSTREAM_BASE_URL (with or without /v1), TOOLSTREAM_KEY and
// TOOLSTREAM_MODEL point it at a deployment.
import Anthropic from '@anthropic-ai/sdk';

const baseURL = (process.env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/v1\/?$/, '');
const client = new Anthropic({ baseURL, apiKey: process.env.TOOLSTREAM_KEY ?? 'unused-on-loopback' });
const model = process.env.TOOLSTREAM_MODEL ?? 'small-model';
const question = process.argv[2] ?? 'Where am I?';
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

// show prints a message: its text, a card per server call (an
// mcp_tool_use block and its mcp_tool_result), its block types, stop
// reason and usage, summed by toolstream over the rounds of the turn,
// and, for a stream, how many message_stop events it carried.
function show(msg, stops) {
  const results = new Map(msg.content.filter((b) => b.type === 'mcp_tool_result').map((b) => [b.tool_use_id, b]));
  for (const b of msg.content) {
    if (b.type === 'text') console.log(`assistant ▸ ${b.text}`);
    if (b.type === 'mcp_tool_use') {
      const res = results.get(b.id);
      const out = res?.content.map((c) => c.text).join('') ?? '…';
      console.log(`▸ ${b.name} ${res && !res.is_error ? '✓' : '✗'} [${b.server_name}] ${JSON.stringify(b.input)} → ${out}`);
    }
  }
  const u = msg.usage;
  console.log(
    `── ${msg.stop_reason}${stops === undefined ? '' : ` · ${stops} message_stop`} · ` +
      `blocks ${msg.content.map((b) => b.type).join(',')} · usage ${u.input_tokens} in + ${u.output_tokens} out`,
  );
}

// converse sends the question, runs each tool_use the answer asks for and
// sends its tool_result back, with the answer as it came (server blocks
// included), until the model answers without tools.
async function converse(label, send) {
  console.log(`${label}:`);
  const messages = [{ role: 'user', content: question }];
  for (let i = 0; i < 3; i++) {
    const msg = await send({ model, max_tokens: 1024, tools, messages });
    messages.push({ role: 'assistant', content: msg.content });
    if (msg.stop_reason !== 'tool_use') return;
    messages.push({
      role: 'user',
      content: msg.content
        .filter((b) => b.type === 'tool_use')
        .map((u) => ({
          type: 'tool_result',
          tool_use_id: u.id,
          content: JSON.stringify(getLocation.call(u.id, u.input)),
        })),
    });
  }
  throw new Error('the model kept calling tools');
}

await converse('messages.create', async (body) => {
  const msg = await client.messages.create(body);
  show(msg);
  return msg;
});
await converse('messages.stream', async (body) => {
  const s = client.messages.stream(body);
  let stops = 0;
  s.on('streamEvent', (ev) => ev.type === 'message_stop' && stops++);
  const msg = await s.finalMessage();
  show(msg, stops);
  return msg;
});
console.log(`── the client ran get_location ${runs} times`);
