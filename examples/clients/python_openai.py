"""The demo conversation through the official OpenAI SDK for Python.

    toolstream demo -listen 127.0.0.1:8080     # in another terminal
    pip install openai && python3 python_openai.py [--expand]

The SDK keeps fields it does not know: each chunk's "toolstream" object
(tool.started, tool.finished, …) is in chunk.model_extra. Here a finished
call becomes a one-line card, "▸ create_task ✓ 2 ms"; --expand shows its
arguments and result under it. TOOLSTREAM_BASE_URL, TOOLSTREAM_KEY and
TOOLSTREAM_MODEL point it at another deployment.
"""

import json
import os
import sys

from openai import OpenAI

MARKS = {"ok": "✓", "error": "✗", "denied": "⊘", "cancelled": "◌"}


def main() -> None:
    expand = "--expand" in sys.argv[1:] or "-e" in sys.argv[1:]
    client = OpenAI(
        base_url=os.environ.get("TOOLSTREAM_BASE_URL", "http://127.0.0.1:8080/v1"),
        # The demo needs no key; a real deployment's auth.keys entry goes here.
        api_key=os.environ.get("TOOLSTREAM_KEY", "not-needed-for-the-demo"),
    )
    stream = client.chat.completions.create(
        model=os.environ.get("TOOLSTREAM_MODEL", "demo-model"),
        stream=True,
        messages=[
            {"role": "system", "content": "You are a helpful assistant that manages the user's task board."},
            {
                "role": "user",
                "content": "Create three tasks for tomorrow: buy groceries, call the plumber "
                "and renew my passport. Then tell me what you did.",
            },
        ],
    )
    started = {}  # call_id → arguments
    for chunk in stream:
        event = (chunk.model_extra or {}).get("toolstream")
        if event and event.get("event") == "tool.started":
            started[event["call_id"]] = event.get("arguments")
        elif event and event.get("event") == "tool.finished":
            print_card(event, started.pop(event["call_id"], None), expand)
        if chunk.choices and chunk.choices[0].delta.content:
            print(chunk.choices[0].delta.content, end="", flush=True)
    print()


def print_card(event: dict, arguments, expand: bool) -> None:
    head = f"{'▾' if expand else '▸'} {event['name']} {MARKS.get(event['status'], event['status'])}"
    if event.get("error"):
        head += f" {event['error']['code']}: {event['error']['message']}"
    print(f"\n{head} {event.get('duration_ms', 0)} ms")
    if expand:
        print(f"    arguments  {json.dumps(arguments)}")
        print(f"    result     {json.dumps(event.get('result'))}")


if __name__ == "__main__":
    main()
