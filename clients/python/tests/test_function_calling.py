# Client-side function calling (docs/api.md#function-calling) through the Python SDK: the script calls
# a declared function, the interaction waits in requires_action with the function_call step, and the
# answer (function_result + previous_interaction_id) lets the script go on in the same sandbox.
import json

import pytest

AGENT = "antigravity-preview-05-2026"
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "The current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


def script(calls):
    return "```tool_calls\n" + json.dumps(calls) + "\n```"


def test_a_function_call_round_trip(interactions_client):
    first = interactions_client.interactions.create(
        agent=AGENT,
        tools=[{"type": "code_execution"}, WEATHER],
        environment={"type": "remote"},
        input=script(
            [
                {"name": "write_file", "args": {"path": "/workspace/city.txt", "content": "Paris"}},
                {"name": "get_weather", "args": {"city": "Paris"}},
                {"name": "read_file", "args": {"path": "/workspace/city.txt"}},
            ]
        ),
    )
    assert first.status == "requires_action"
    call = first.steps[-1]
    assert call.type == "function_call"
    assert call.name == "get_weather"
    assert call.arguments == {"city": "Paris"}
    assert call.id.startswith("call_")

    second = interactions_client.interactions.create(
        agent=AGENT,
        previous_interaction_id=first.id,
        input=[{"type": "function_result", "call_id": call.id, "name": "get_weather", "result": "sunny"}],
    )
    assert second.status == "completed"
    assert second.environment_id == first.environment_id
    assert f"get_weather ({call.id}): sunny" in second.output_text
    assert "Paris" in second.output_text, "the file written before the call is read after it, in the same sandbox"


def test_arguments_that_do_not_fit_the_declaration_are_refused(interactions_client):
    with pytest.raises(Exception) as refused:
        interactions_client.interactions.create(
            agent=AGENT,
            tools=[WEATHER],
            input=script([{"name": "get_weather", "args": {}}]),
        )
    # The SDK's BadRequestError (its interactions client parses the error body, `error.code` a string)
    # carries the status and the emulator's message.
    assert refused.value.status_code == 400
    assert "tool_calls item 1: function get_weather: arguments.city is missing" in str(refused.value)
