// A server tool and a client tool in one conversation, through the
// Responses API with the official openai SDK, three ways: responses.stream()
// with finalResponse(), responses.create({ stream: true }) read event by
// event, and responses.create() without streaming. Each time the model adds
// a task with create_task, a server tool toolstream runs itself (an
// mcp_call output item), then asks for the user's city with get_location,
// the client's own function tool (a function_call item). The script runs
// it and sends a function_call_output with previous_response_id, and the
// model answers from both results.
//
//   node responses-client-tools.mjs      # against toolstream serve, an upstream and create_task
//
// For each response it prints the text, a card per mcp_call, how many
// response.completed events a stream carried, the output item types and
// the usage, which toolstream sums over the rounds of the turn:
//
//   responses.stream:
//   assistant ▸ Adding it.
//   ▸ create_task ✓ [toolstream] {"title":"Gym"} → {"id":1,"title":"Gym"}
//   assistant ▸ Where are you?
//   ── completed · 1 response.completed · output message,mcp_call,message,function_call · usage 40 in + 10 out = 50
//     get_location({}) run by the client
//   assistant ▸ Done: Gym is on your board for tomorrow, in Paris.
//   ── completed · 1 response.completed · output message · usage 50 in + 5 out = 55
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

// show prints an output item: the assistant's text, or a card for a
// server call.
function show(item) {
  if (item.type === 'message') {
    const text = item.content.filter((c) => c.type === 'output_text').map((c) => c.text).join('');
    // A message after the first opens with a paragraph break (so that
    // output_text reads right); a line per message has no use for it.
    console.log(`assistant ▸ ${text.replace(/^\n+/, '')}`);
  } else if (item.type === 'mcp_call') {
    const mark = item.status === 'completed' ? '✓' : '✗';
    console.log(`▸ ${item.name} ${mark} [${item.server_label}] ${item.arguments} → ${item.output ?? item.error}`);
  }
}

function summary(r, completed) {
  const u = r.usage;
  const events = completed === undefined ? '' : ` · ${completed} response.completed`;
  console.log(
    `── ${r.status}${events} · output ${r.output.map((i) => i.type).join(',')} · ` +
      `usage ${u.input_tokens} in + ${u.output_tokens} out = ${u.total_tokens}`,
  );
}

// Each way sends one request and returns the response it read, printed:
// a stream's items as each is done, the whole response's in order.
const ways = {
  'responses.stream': async (params) => {
    const s = client.responses.stream(params);
    let completed = 0;
    s.on('response.output_item.done', (ev) => show(ev.item));
    s.on('response.completed', () => completed++);
    const r = await s.finalResponse();
    summary(r, completed);
    return r;
  },
  'responses.create stream': async (params) => {
    const events = await client.responses.create({ ...params, stream: true });
    let r;
    let completed = 0;
    for await (const ev of events) {
      if (ev.type === 'response.output_item.done') show(ev.item);
      if (ev.type === 'response.completed') {
        completed++;
        r = ev.response;
      }
    }
    summary(r, completed);
    return r;
  },
  'responses.create': async (params) => {
    const r = await client.responses.create(params);
    r.output.forEach(show);
    summary(r);
    return r;
  },
};

let runs = 0;
for (const [label, send] of Object.entries(ways)) {
  console.log(`${label}:`);
  let r = await send({ model, tools, input: 'Add a gym session near me for tomorrow.' });
  const outputs = r.output
    .filter((i) => i.type === 'function_call')
    .map((c) => {
      runs++;
      console.log(`  ${c.name}(${c.arguments}) run by the client`);
      return { type: 'function_call_output', call_id: c.call_id, output: 'Paris' };
    });
  r = await send({ model, tools, previous_response_id: r.id, input: outputs });
}
console.log(`── the client ran get_location ${runs} times`);
