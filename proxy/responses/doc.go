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
//	                                         function: {name, arguments}}; consecutive
//	                                         calls, and an assistant message just before
//	                                         them, make one assistant message
//	input item function_call_output        {role: tool, tool_call_id: call_id,
//	                                         content: output (parts' text joined)}
//	input item reasoning                   dropped
//	input item mcp_call,                   not sent: listed in Request.Restored, and
//	  mcp_approval_request,                  replaced by the stored messages through
//	  item_reference                         Request.Restore (a call is never run
//	                                         again); an assistant message that only
//	                                         calls tools then joins the one before it
//	input item web_search_call             like mcp_call (see hostedItem); with no
//	                                         stored response holding it, left out
//	tools [{type: web_search…}]            not sent as a client tool: Request.Hosted,
//	                                         run by the server tool hosted_tools binds
//	tools [{type: function, name,          tools [{type: function, function: {name,
//	  description, parameters, strict}]      description, parameters, strict}}]
//	tool_choice "none"|"auto"|"required"   the same
//	tool_choice {type: function, name}     {type: function, function: {name}}
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
// Refused with a 400 naming the field: tools of any type but function
// (code unsupported_tool_type), background: true, conversation and prompt
// (code unsupported_parameter), and input items, content parts or a
// tool_choice this proxy cannot pass on (code unsupported_input). Every
// other field — include, truncation, service_tier, prompt_cache_key,
// safety_identifier, fields newer than this package — is ignored: SDKs
// send some of them on every request (the Agents SDK always sends
// include: []).
//
// A request that continues a stored response is completed by its caller:
// [Request.Prepend] puts the stored conversation before the new input.
package responses
