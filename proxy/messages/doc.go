// Package messages reads Anthropic Messages API requests (POST /v1/messages)
// and turns each into the chat-completions request the turn runner takes:
// every round upstream stays a chat-completions request, whatever the
// client speaks. It also writes errors in Anthropic's shape ([ErrorBody],
// [ErrorType]), and encodes the answer from the turn's events. [Protocol]
// is its side of the proxy's turn route: the request read and its earlier
// answers restored from stored turns, its encoder, its answer, and every
// error on the route in Anthropic's shape.
//
// What maps to what:
//
//	Messages request                       chat-completions body
//	-------------------------------------  --------------------------------------------
//	model                                  model
//	system: "text" or text blocks,         one system message, first: every piece
//	  and role "system" messages             joined with a blank line
//	user content "text"                    {role: user, content: "text"}
//	user blocks text, image                a user message: one text is a string,
//	                                         more parts stay a list; an image is
//	                                         {type: image_url, image_url: {url}}, base64
//	                                         data as a data: URL
//	user block tool_result                 {role: tool, tool_call_id: the call id,
//	  (string or text/image/tool_reference   content: its text joined, or "error" for an
//	  blocks, is_error)                      empty error}, placed before the user's
//	                                         other blocks; its images go in that user
//	                                         message (chat tool messages hold text); a
//	                                         tool_reference reads "Tool loaded: NAME"
//	                                         and offers the deferred tool it names
//	assistant blocks text, tool_use        one assistant message: the texts joined,
//	                                         and tool calls {id: the call id, type: function,
//	                                         function: {name, arguments: JSON of input}}
//	thinking with this proxy's signature   the assistant message's reasoning_content
//	  for this model (thinking.go)
//	other thinking, redacted_thinking      dropped
//	server_tool_use                        dropped (history stitching restores a round
//	                                         the proxy ran)
//	tool_search_tool_result                dropped; its tool_references offer the
//	                                         deferred tools they name
//	mcp_tool_use, mcp_tool_result          not sent: listed in Request.Restored; the
//	                                         stored rounds replace the answer that held
//	                                         them through Request.Restore (never run
//	                                         again)
//	server_tool_use,                       like mcp_tool_use (see hostedBlock); with no
//	  web_search_tool_result,                stored turn holding them, left out
//	  web_fetch_tool_result
//	tools [{type: web_search_…,            not sent as client tools: Request.Hosted,
//	  web_fetch_…}]                          run by the server tool hosted_tools binds
//	tools [{name, description,             tools [{type: function, function: {name,
//	  input_schema, type: custom}]           description, parameters: input_schema}}]
//	  with defer_loading, not named yet      left out (Request.Deferred); with a tool
//	                                         search tool, in Chat for the turn to hide
//	                                         until a search finds it
//	tools tool_search_tool_regex_… /       Request.Search: run by the proxy over the
//	  tool_search_tool_bm25_…                deferred tools (search_run.go), streamed
//	                                         as server_tool_use + tool_search_tool_result
//	tool_choice auto / any / none          "auto" / "required" / "none"
//	tool_choice {type: tool, name}         {type: function, function: {name}}
//	  disable_parallel_tool_use: true        parallel_tool_calls: false
//	max_tokens (required)                  max_tokens
//	temperature, top_p                     the same, digits as sent
//	stop_sequences                         stop
//	stream                                 Request.Stream; the upstream always streams,
//	                                         with stream_options.include_usage
//	metadata.user_id                       user
//	toolstream                             toolstream
//	thinking                               not sent: Request.Thinking says it is on
//	output_config.format {type:            response_format {type: json_schema,
//	  json_schema, schema} (or the older     json_schema: {name: "output", schema}}
//	  top-level output_format)
//
// Refused with a 400 naming the field, in Anthropic's words: a missing
// max_tokens ("max_tokens: Field required"; [ToCount], for count_tokens,
// takes none), a malformed field or block, and an output format that is
// not a JSON schema. Left out and listed in [Request.LeftOut] (the route
// logs them), never refused: tools of Anthropic's server types (bash_…,
// text_editor_…, computer_…, code_execution_…, memory_…, web_search_… and
// web_fetch_… unless hosted_tools binds them, types newer than this
// package), blocks this proxy cannot pass on (documents, other server
// tools' results) and image sources other than base64 and url. Unknown
// fields and block properties — cache_control, context_management,
// output_config.effort, citations, top_k, fields newer than this package
// — are ignored: Claude Code sends them.
//
// Claude Code's tool search (a client ToolSearch tool, a
// DeferredToolPlaceholder with defer_loading, tool_reference blocks in
// its tool_results) and Anthropic's (tool_search_tool_… server tools) meet
// in one rule: a deferred tool is offered only once a tool_reference in
// the request's history names it, or, within one answer, once the proxy's
// run of Anthropic's search found it (loop.Turn.ClientShown).
//
// A block id is the call id with Anthropic's prefix ("toolu_" + id,
// "mcptoolu_" + id; see [CallID]): a tool_use or tool_result sent back
// names the call id the turn stored, which history stitching finds.
package messages
