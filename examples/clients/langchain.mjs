// The demo conversation through LangChain JS (ChatOpenAI), pointed at
// toolstream. LangChain turns each chunk into an AIMessageChunk and keeps
// only the fields it knows; __includeRawResponse: true puts the chunk as it
// came under additional_kwargs.__raw_response, where the toolstream object
// rides, and its events become cards (cards.mjs).
//
//   toolstream demo -listen 127.0.0.1:8080     # in another terminal
//   npm install && node langchain.mjs [--expand]
//
// TOOLSTREAM_BASE_URL, TOOLSTREAM_KEY and TOOLSTREAM_MODEL point it at
// another deployment.
import { ChatOpenAI } from '@langchain/openai';
import { Cards, options, prompt, system } from './cards.mjs';

const opts = options();
const llm = new ChatOpenAI({
  model: opts.model,
  apiKey: opts.apiKey,
  configuration: { baseURL: opts.baseURL },
  streamUsage: true,
  __includeRawResponse: true,
});
const cards = new Cards({ write: (s) => process.stdout.write(s), expand: opts.expand });

let finish = '';
let usage;
const stream = await llm.stream([
  ['system', system],
  ['human', prompt],
]);
for await (const chunk of stream) {
  const raw = chunk.additional_kwargs.__raw_response;
  cards.event(raw?.toolstream);
  if (typeof chunk.content === 'string') cards.text(chunk.content);
  finish = raw?.choices?.[0]?.finish_reason ?? finish;
  usage = chunk.usage_metadata ?? usage;
}
cards.end();
console.log(
  `── finish_reason ${finish} · ${cards.cards} tool calls` +
    ` · ${usage?.input_tokens} prompt + ${usage?.output_tokens} completion tokens`,
);
