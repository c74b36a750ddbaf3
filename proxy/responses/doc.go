// Package responses reads OpenAI Responses API requests (POST /v1/responses)
// and turns each into the chat-completions request the turn runner takes:
// every round upstream stays a chat-completions request, whatever the
// client speaks. It also encodes the answer from the turn's events
// ([Encoder]), and [Protocol] is its side of the proxy's turn route: the
// request read and completed from storage, its encoder, its answer and
// its errors.
//
// What maps to what:
//
//	Responses request                      chat-completions body
//	-------------------------------------  --------------------------------------------
//	model                                  model
//	instructions                           a system message, first
//	input: "text"                          {role: user, content: "text"}
//	input item message (type optional)     a message of its role (developer → system);
//	  content: "text"                        content "text"
//	  content: input_text, output_text,      text parts; a user's list stays a list
//	    refusal parts                        (one text becomes a string), other
//	                                         roles' texts are joined into a string
//	  content: input_image (image_url)       {type: image_url, image_url: {url, detail}}
//	input item function_call               a tool call {id: call_id, type: function,
//	  (namespace, name)                      function: {name: the flat name, arguments}};
//	                                         consecutive calls, and an assistant message
//	                                         just before them, make one assistant message
//	input item custom_tool_call            the same, arguments {"input": input}
//	input item tool_search_call            the same, name tool_search, arguments the
//	                                         arguments object as a string
//	input item function_call_output,       {role: tool, tool_call_id: call_id,
//	  custom_tool_call_output                content: output (parts' text joined)}
//	input item tool_search_output          {role: tool, tool_call_id: call_id, content:
//	                                         the flat names of the tools it loaded}
//	input item reasoning (encrypted or     dropped
//	  not), additional_tools
//	input item mcp_call,                   not sent: listed in Request.Restored, and
//	  mcp_approval_request,                  replaced by the stored messages through
//	  item_reference                         Request.Restore (a call is never run
//	                                         again); an assistant message that only
//	                                         calls tools then joins the one before it
//	input item mcp_approval_response       the decision on a call an earlier response
//	  (approval_request_id, approve,         ended on for approval (wireask.go): the
//	  reason)                                call's result, once it ran or was denied
//	input item mcp_list_tools              dropped: the turn lists its tools itself
//	tools [{type: mcp, server_label:       not sent: Request.Ask — allowed_tools
//	  "toolstream", allowed_tools,           narrows the server tools, require_approval
//	  require_approval}]                     adds approval, and a call that needs it
//	                                         ends the response (wireask.go)
//	tools [{type: mcp, server_label,       not sent: Request.Servers — the proxy
//	  server_url, headers|authorization,     connects to the server and offers its
//	  allowed_tools, require_approval}]      tools for the turn (mcpservers.go)
//	input item web_search_call             like mcp_call (see hostedItem); with no
//	                                         stored response holding it, left out
//	tools [{type: web_search…}]            not sent as a client tool: Request.Hosted,
//	                                         run by the server tool hosted_tools binds
//	tools [{type: function, name,          tools [{type: function, function: {name,
//	  description, parameters, strict}]      description, parameters, strict}}]
//	tools [{type: namespace, name: N,      each tool of the namespace, named
//	  tools}]                                flatName(N, name): N__name (bare in N
//	                                         "functions"); a taken name gets _2, _3, …
//	tools [{type: custom, name,            a function of one string parameter, input
//	  description, format}]                  (a grammar shown in its description)
//	tools [{type: tool_search, ...}]       a function named tool_search
//	tools of additional_tools and          the same, as if in tools
//	  tool_search_output input items
//	tool_choice "none"|"auto"|"required"   the same
//	tool_choice {type: function|custom,    {type: function, function: {name: the flat
//	  name, namespace}                       name}}
//	parallel_tool_calls                    parallel_tool_calls
//	max_output_tokens                      max_tokens
//	temperature, top_p                     the same, digits as sent
//	text.format json_schema                response_format {type: json_schema,
//	  {name, schema, strict, description}    json_schema: {name, description, schema, strict}}
//	text.format json_object                response_format {type: json_object}
//	text.format text                       nothing (the default)
//	reasoning.effort                       reasoning_effort
//	stream                                 stream, with stream_options.include_usage
//	user                                   user
//	toolstream                             toolstream, less "events" (Request.Events)
//	store (default true),                  not sent: kept on Request for the answer
//	  previous_response_id, metadata          and the stored response
//
// A call of a client tool is answered in its kind's item (Encoder): a
// function_call (with namespace and the bare name for a namespace's
// tool), a custom_tool_call whose input is the model's input argument, a
// tool_search_call whose arguments are an object.
//
// Left out of the round, never refused, and listed in
// [Request.LeftOut] (the route logs each kind once per key and hour):
// hosted tools and tool types newer than this package, input items it
// has no form for (compaction, web_search_call, …), content parts other
// than text and images, an image in a tool output, a tool_choice of
// another kind. Refused with a 400 naming the field: background: true,
// conversation and prompt (code unsupported_parameter), and inputs it
// can neither pass on nor drop — an image by file_id or outside a user
// message (code unsupported_input). Every
// other field — include, truncation, service_tier, prompt_cache_key,
// safety_identifier, fields newer than this package — is ignored: SDKs
// send some of them on every request (the Agents SDK always sends
// include: []).
//
// A request that continues a stored response is completed by its caller:
// [Request.Prepend] puts the stored conversation before the new input.
package responses
