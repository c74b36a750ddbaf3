// The demo conversation through the official OpenAI SDK for Node.js,
// pointed at toolstream. Nothing in the SDK changes: toolstream's tool
// events arrive on ordinary chunks as chunk.toolstream, which the SDK
// passes through, and cards.mjs turns them into cards.
//
//   toolstream demo -listen 127.0.0.1:8080     # in another terminal
//   npm install && node openai.mjs [--expand]
//
// TOOLSTREAM_BASE_URL, TOOLSTREAM_KEY and TOOLSTREAM_MODEL point it at
// another deployment.
import OpenAI from 'openai';
import { Cards, options, prompt, system } from './cards.mjs';

const opts = options();
const client = new OpenAI({ baseURL: opts.baseURL, apiKey: opts.apiKey });
const cards = new Cards({ write: (s) => process.stdout.write(s), expand: opts.expand });

const stream = await client.chat.completions.create({
  model: opts.model,
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: prompt },
  ],
  stream: true,
  stream_options: { include_usage: true },
});

let finish = '';
let usage;
for await (const chunk of stream) {
  cards.event(chunk.toolstream);
  const choice = chunk.choices[0];
  cards.text(choice?.delta?.content);
  if (choice?.finish_reason) finish = choice.finish_reason;
  if (chunk.usage) usage = chunk.usage;
}
cards.end();
console.log(
  `── finish_reason ${finish} · ${cards.cards} tool calls` +
    (usage ? ` · ${usage.prompt_tokens} prompt + ${usage.completion_tokens} completion tokens` : ''),
);
