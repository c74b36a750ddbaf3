// The demo conversation through the AI SDK (streamText) with the
// OpenAI-compatible provider, pointed at toolstream. The AI SDK keeps only
// the fields it knows of each chunk; includeRawChunks: true hands over the
// chunks as they came, and their toolstream objects become cards
// (cards.mjs).
//
//   toolstream demo -listen 127.0.0.1:8080     # in another terminal
//   npm install && node ai-sdk.mjs [--expand]
//
// TOOLSTREAM_BASE_URL, TOOLSTREAM_KEY and TOOLSTREAM_MODEL point it at
// another deployment.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText } from 'ai';
import { Cards, options, prompt, system } from './cards.mjs';

const opts = options();
const toolstream = createOpenAICompatible({
  name: 'toolstream',
  baseURL: opts.baseURL,
  apiKey: opts.apiKey,
  includeUsage: true,
});
const cards = new Cards({ write: (s) => process.stdout.write(s), expand: opts.expand });

const result = streamText({
  model: toolstream(opts.model),
  system,
  prompt,
  includeRawChunks: true,
});

for await (const part of result.fullStream) {
  switch (part.type) {
    case 'text-delta':
      cards.text(part.text);
      break;
    case 'raw':
      // The upstream chunk, parsed: tool activity rides on it.
      cards.event(part.rawValue?.toolstream);
      break;
    case 'error':
      throw part.error;
  }
}
cards.end();
const usage = await result.usage;
console.log(
  `── finish_reason ${await result.finishReason} · ${cards.cards} tool calls` +
    ` · ${usage.inputTokens} prompt + ${usage.outputTokens} completion tokens`,
);
