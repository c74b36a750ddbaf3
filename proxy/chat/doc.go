// Package chat encodes a turn for a chat-completions client: the turn's
// chat chunks streamed as they come ([Stream]), or gathered into one
// chat.completion for a client that did not ask to stream ([Collector]).
// Each is chat's [loop.Out], beside the encoders of proxy/responses and
// proxy/messages. Unlike theirs, chat's wire is the upstream's own, so the
// Stream takes the upstream's chunks as chunks (loop.Takes.Chunks): one the
// turn did not change goes out byte for byte. The turn's own output comes
// as typed events, of which the Stream builds chunks itself (ownchunks.go).
// The Collector reads typed events only, as those encoders do, with the
// few facts only a chat answer keeps (system_fingerprint, which reasoning
// field, content "" rather than null) in loop.Meta.
package chat
