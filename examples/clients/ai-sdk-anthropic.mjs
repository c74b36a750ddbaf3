// The demo conversation through the AI SDK (streamText) with its Anthropic
// provider (@ai-sdk/anthropic), pointed at toolstream's /v1/messages. The
// provider reads toolstream's mcp_tool_use and mcp_tool_result blocks as
// tool calls the provider ran, with their results; they become cards
// (cards.mjs).
//
//   toolstream demo -listen 127.0.0.1:8080     # in another terminal
//   npm install && node ai-sdk-anthropic.mjs [--expand]
//
// The provider takes the base URL with /v1. TOOLSTREAM_BASE_URL,
// TOOLSTREAM_KEY and TOOLSTREAM_MODEL point it at another deployment.
import { createAnthropic } from '@ai-sdk/anthropic';
import { streamText } from 'ai';
import { Cards, options, prompt, system } from './cards.mjs';

const opts = options();
const anthropic = createAnthropic({ baseURL: opts.baseURL, apiKey: opts.apiKey });
const cards = new Cards({ write: (s) => process.stdout.write(s), expand: opts.expand });

globalThis.AI_SDK_LOG_WARNINGS = false;
const result = streamText({ model: anthropic(opts.model), system, prompt, maxOutputTokens: 1024 });
for await (const part of result.fullStream) {
  switch (part.type) {
    case 'text-delta':
      cards.text(part.text);
      break;
    case 'tool-call':
      if (part.providerExecuted) {
        cards.event({ event: 'tool.started', call_id: part.toolCallId, name: part.toolName, arguments: part.input });
      }
      break;
    case 'tool-result':
      if (part.providerExecuted) {
        // The mcp_tool_result's content: a list of text blocks.
        const text = Array.isArray(part.output) ? part.output.map((c) => c.text ?? c).join('') : JSON.stringify(part.output);
        cards.event({ event: 'tool.finished', call_id: part.toolCallId, name: part.toolName, status: 'ok', result: text });
      }
      break;
    case 'tool-error':
      cards.event({ event: 'tool.finished', call_id: part.toolCallId, name: part.toolName, status: 'error',
        error: { code: 'ERROR', message: String(part.error) } });
      break;
    case 'error':
      throw part.error;
  }
}
cards.end();
const usage = await result.usage;
console.log(
  `── finish_reason ${await result.finishReason} · ${cards.cards} tool calls` +
    ` · ${usage.inputTokens} input + ${usage.outputTokens} output tokens`,
);
