// The AI SDK's OpenAI provider in Responses mode (openai.responses())
// through toolstream: streamText reads toolstream's server calls as the
// provider's own MCP calls ("mcp.<tool>", provider-executed), and the
// client's get_location as an ordinary tool call, which it runs itself.
//
//   node ai-sdk-responses.mjs      # against toolstream serve, an upstream and create_task
//
// TOOLSTREAM_BASE_URL, TOOLSTREAM_KEY and TOOLSTREAM_MODEL point it at a
// deployment.
import { createOpenAI } from '@ai-sdk/openai';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';

const baseURL = process.env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080/v1';
const apiKey = process.env.TOOLSTREAM_KEY ?? 'unused-on-loopback';
const model = process.env.TOOLSTREAM_MODEL ?? 'small-model';
const openai = createOpenAI({ baseURL, apiKey });

const result = streamText({
  model: openai.responses(model),
  prompt: 'Add a gym session near me for tomorrow.',
  tools: {
    get_location: tool({
      description: "The user's current city.",
      inputSchema: jsonSchema({ type: 'object', properties: {} }),
      execute: async () => {
        console.log('  get_location({}) run by the client');
        return 'Paris';
      },
    }),
  },
  stopWhen: stepCountIs(3),
});
let line = false;
let fresh = false;
for await (const part of result.fullStream) {
  switch (part.type) {
    case 'text-start':
      process.stdout.write('assistant ▸ ');
      line = true;
      fresh = true;
      break;
    case 'text-delta':
      // A message after the first opens with a paragraph break (so that
      // the joined text reads right); a line per message has no use for it.
      process.stdout.write(fresh ? part.text.replace(/^\n+/, '') : part.text);
      fresh = fresh && !part.text.replace(/^\n+/, '');
      break;
    case 'text-end':
      process.stdout.write('\n');
      line = false;
      break;
    case 'tool-result':
      if (part.providerExecuted) console.log(`▸ ${part.toolName} ✓ → ${part.output.output}`);
      break;
    case 'error':
      throw part.error;
  }
}
if (line) process.stdout.write('\n');
const usage = await result.totalUsage;
console.log(`── ${(await result.steps).length} steps · ${usage.inputTokens} in + ${usage.outputTokens} out`);
