// The demo conversation through Anthropic's SDK (@anthropic-ai/sdk),
// pointed at toolstream's /v1/messages: messages.stream() with
// finalMessage(). The server tools' calls arrive as mcp_tool_use and
// mcp_tool_result blocks, drawn as cards (cards.mjs).
//
//   toolstream demo -listen 127.0.0.1:8080     # in another terminal
//   npm install && node anthropic.mjs [--expand]
//
// The SDK takes the host and adds /v1/messages itself. TOOLSTREAM_BASE_URL
// (with or without /v1), TOOLSTREAM_KEY and TOOLSTREAM_MODEL point it at
// another deployment.
import Anthropic from '@anthropic-ai/sdk';
import { Cards, messagesEvent, options, prompt, system } from './cards.mjs';

const opts = options();
const client = new Anthropic({ baseURL: opts.baseURL.replace(/\/v1\/?$/, ''), apiKey: opts.apiKey });
const cards = new Cards({ write: (s) => process.stdout.write(s), expand: opts.expand });

const stream = client.messages.stream({
  model: opts.model,
  max_tokens: 1024,
  system,
  messages: [{ role: 'user', content: prompt }],
});
stream.on('text', (delta) => cards.text(delta));
stream.on('contentBlock', (block) => cards.event(messagesEvent(block)));
const message = await stream.finalMessage();
cards.end();

const kinds = message.content.map((b) => b.type);
console.log(
  `── stop_reason ${message.stop_reason} · ${cards.cards} tool calls` +
    ` · ${kinds.filter((k) => k === 'mcp_tool_use').length} mcp_tool_use and` +
    ` ${kinds.filter((k) => k === 'mcp_tool_result').length} mcp_tool_result blocks in finalMessage()` +
    ` · ${message.usage.input_tokens} input + ${message.usage.output_tokens} output tokens`,
);
