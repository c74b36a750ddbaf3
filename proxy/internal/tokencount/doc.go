// Package tokencount counts the input tokens of a chat request, for POST
// /v1/messages/count_tokens (Claude Code asks for /context and to decide
// when to compact). The upstream's own tokenizer answers where its server
// has one — vLLM's, SGLang's and llama.cpp's POST /tokenize, each with its
// own body — and an estimate from a byte-pair tokenizer built into the
// binary answers otherwise: never a 404, never a request passed to a
// server without the route.
//
// Which body an upstream takes is learned, not configured: the first
// count for an upstream tries vLLM's chat form ({model, messages, tools},
// the chat template applied), then SGLang's prompt form ({model,
// prompt}), then llama.cpp's content form ({content}), and the form that
// answered is remembered by the upstream's name. A server without
// /tokenize (404, 405, 501, no answer, an answer that is not JSON) is
// asked again after ten minutes; in between the estimate answers at once.
package tokencount
