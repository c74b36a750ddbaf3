#!/bin/sh
# The demo conversation with curl: the raw stream, as any client reads it.
# -N turns off curl's buffering so chunks print as they arrive. Tool
# activity rides on chunks with an empty delta and a "toolstream" object
# (tool.started, tool.finished, round.started, …).
#
#   toolstream demo -listen 127.0.0.1:8080     # in another terminal
#   sh curl.sh
#
# TOOLSTREAM_BASE_URL, TOOLSTREAM_KEY and TOOLSTREAM_MODEL point it at
# another deployment.
set -eu
base=${TOOLSTREAM_BASE_URL:-http://127.0.0.1:8080/v1}
model=${TOOLSTREAM_MODEL:-demo-model}

curl -sS -N --fail-with-body "$base/chat/completions" \
	-H 'Content-Type: application/json' \
	${TOOLSTREAM_KEY:+-H "Authorization: Bearer $TOOLSTREAM_KEY"} \
	-d @- <<JSON
{
  "model": "$model",
  "stream": true,
  "stream_options": {"include_usage": true},
  "messages": [
    {"role": "system", "content": "You are a helpful assistant that manages the user's task board."},
    {"role": "user", "content": "Create three tasks for tomorrow: buy groceries, call the plumber and renew my passport. Then tell me what you did."}
  ]
}
JSON
