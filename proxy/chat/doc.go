// Package chat encodes a turn for a chat-completions client: the turn's
// chat chunks streamed as they come ([Stream]), or gathered into one
// chat.completion for a client that did not ask to stream. It is chat's
// [loop.Out], beside proxy/responses' and proxy/messages' encoders; unlike
// theirs, chat's wire is the upstream's own, so it takes the turn as
// chunks (loop.Takes.Chunks), an upstream chunk the turn did not change
// byte for byte.
package chat
