// A rate-limited key through the official OpenAI SDK for Node.js: a burst
// up to the key's requests_per_minute, the request over it refused with a
// 429 and OpenAI's rate-limit headers, then the SDK's own retry, which
// waits as long as retry-after-ms says and succeeds.
//
//   node ratelimit.mjs KEY [BURST]
//
// TOOLSTREAM_BASE_URL points it at the proxy (default
// http://127.0.0.1:8080/v1); TOOLSTREAM_MODEL picks the model.
import OpenAI from 'openai';

const [key, burstArg = '20'] = process.argv.slice(2);
const baseURL = process.env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080/v1';
const model = process.env.TOOLSTREAM_MODEL ?? 'qwen2.5:7b';
const ask = { model, messages: [{ role: 'user', content: 'Say hi.' }] };

const strict = new OpenAI({ baseURL, apiKey: key, maxRetries: 0 });
const burst = Number(burstArg);
let ok = 0;
let last;
for (let i = 0; i < burst; i++) {
  const { response } = await strict.chat.completions.create(ask).withResponse();
  last = response.headers;
  ok++;
}
console.log(`burst: ${ok} ok · limit ${last.get('x-ratelimit-limit-requests')} · remaining ${last.get('x-ratelimit-remaining-requests')}`);

try {
  await strict.chat.completions.create(ask);
  console.log('over the limit: answered (not limited)');
} catch (err) {
  const h = err.headers;
  console.log(
    `over the limit: ${err.status} ${err.code} ${err.type} · retry-after ${h.get('retry-after')}s` +
      ` · retry-after-ms ${Number(h.get('retry-after-ms')) > 0 ? '> 0' : h.get('retry-after-ms')}` +
      ` · remaining ${h.get('x-ratelimit-remaining-requests')}`,
  );
}

const patient = new OpenAI({ baseURL, apiKey: key, maxRetries: 1 });
const started = Date.now();
const { data, response } = await patient.chat.completions.create(ask).withResponse();
const waited = Date.now() - started;
console.log(
  `with maxRetries 1: ${data.choices[0].message.content} · after ${waited >= 100 ? 'waiting' : 'no wait'}` +
    ` · remaining ${response.headers.get('x-ratelimit-remaining-requests')}`,
);
