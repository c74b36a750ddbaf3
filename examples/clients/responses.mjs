// The Responses API through toolstream with the official openai SDK: a
// conversation in which the model adds a task with a server tool
// toolstream runs itself, asks the client where the user is (a function
// tool the client runs), answers from both, then answers a follow-up from
// the stored conversation.
//
//   node responses.mjs      # against toolstream serve, an upstream and create_task
//
// - responses.stream() streams each answer; finalResponse() is the whole
//   response. The server call arrives as an mcp_call output item, with its
//   arguments and result, and is printed as a card.
// - The client's call arrives as a function_call item; the script runs it
//   and sends a function_call_output with previous_response_id, so it sends
//   only the new item: toolstream keeps the conversation.
// - responses.create() without stream asks the follow-up, again with
//   previous_response_id.
//
// TOOLSTREAM_BASE_URL, TOOLSTREAM_KEY and TOOLSTREAM_MODEL point it at a
// deployment.
import OpenAI from 'openai';

const baseURL = process.env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080/v1';
const apiKey = process.env.TOOLSTREAM_KEY ?? 'unused-on-loopback';
const model = process.env.TOOLSTREAM_MODEL ?? 'small-model';
const client = new OpenAI({ baseURL, apiKey });
const tools = [
  {
    type: 'function',
    name: 'get_location',
    description: "The user's current city.",
    parameters: { type: 'object', properties: {} },
    strict: false,
  },
];

// stream runs one streamed answer, printing text as it comes and a card
// per server call, and returns the final response.
async function stream(params) {
  const s = client.responses.stream({ model, tools, ...params });
  let line = false;
  s.on('response.output_text.delta', (ev) => {
    let text = ev.delta;
    // A message after the first opens with a paragraph break (so that
    // output_text reads right); a line per message has no use for it.
    if (!line) {
      text = text.replace(/^\n+/, '');
      if (!text) return;
      process.stdout.write('assistant ▸ ');
    }
    process.stdout.write(text);
    line = true;
  });
  s.on('response.output_item.done', (ev) => {
    if (line) process.stdout.write('\n');
    line = false;
    const item = ev.item;
    if (item.type === 'mcp_call') {
      const mark = item.status === 'completed' ? '✓' : '✗';
      console.log(`▸ ${item.name} ${mark} [${item.server_label}] ${item.arguments} → ${item.output ?? item.error}`);
    }
  });
  const response = await s.finalResponse();
  if (line) process.stdout.write('\n');
  return response;
}

function summary(r) {
  const u = r.usage;
  console.log(
    `── ${r.status} · output ${r.output.map((i) => i.type).join(',')} · ` +
      `usage ${u.input_tokens} in + ${u.output_tokens} out = ${u.total_tokens}`,
  );
}

console.log('responses.stream:');
let r = await stream({ input: 'Add a gym session near me for tomorrow.' });
summary(r);
const calls = r.output.filter((i) => i.type === 'function_call');
const outputs = calls.map((c) => {
  console.log(`  ${c.name}(${c.arguments}) run by the client`);
  return { type: 'function_call_output', call_id: c.call_id, output: 'Paris' };
});
r = await stream({ previous_response_id: r.id, input: outputs });
summary(r);

console.log('responses.create:');
const follow = await client.responses.create({ model, previous_response_id: r.id, input: 'What did you add?' });
console.log(`assistant ▸ ${follow.output_text}`);
summary(follow);
const again = await client.responses.retrieve(follow.id);
console.log(`── retrieved ${again.id}: ${again.output_text === follow.output_text ? 'same answer' : 'different answer'}`);
