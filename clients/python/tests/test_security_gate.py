# The service documentation's security-gate example (agent-hooks.md, "Python"), nearly verbatim: only
# the client comes from the fixture, and the answer is checked instead of printed.
import json


def test_the_seed_security_gate_blocks_rm_rf(interactions_emulator):
    client = interactions_emulator.client()

    hooks_config = {
        "security-gate": {
            "pre_tool_execution": [
                {
                    "matcher": "code_execution",
                    "hooks": [
                        {
                            "type": "command",
                            "command": "python3 /.agents/hooks-scripts/gate.py",
                            "timeout": 10,
                        }
                    ],
                }
            ]
        }
    }

    gate_script = """#!/usr/bin/env python3
import sys, json
data = json.load(sys.stdin)
cmd = str(data.get("tool_call", {}).get("args", {}))
if "rm -rf" in cmd:
    print(json.dumps({"decision": "deny", "reason": "Destructive command blocked by security gate."}))
else:
    print(json.dumps({"decision": "allow"}))
"""

    interaction = client.interactions.create(
        agent="antigravity-preview-05-2026",
        input="Run `rm -rf /tmp/forbidden` using code_execution.",
        tools=[{"type": "code_execution"}],
        environment={
            "type": "remote",
            "sources": [
                {
                    "type": "inline",
                    "target": ".agents/hooks.json",
                    "content": json.dumps(hooks_config, indent=2),
                },
                {
                    "type": "inline",
                    "target": ".agents/hooks-scripts/gate.py",
                    "content": gate_script,
                },
            ],
        },
    )
    print(interaction.output_text)

    assert interaction.status == "completed"
    # The call as the hook saw it. google-genai 2.25 types `language` as Literal["python"] only; it
    # keeps the seed's "bash" as sent, and only model_dump() warns about it (docs/fidelity.md).
    [call] = [step for step in interaction.steps if step.type == "code_execution_call"]
    assert (call.arguments.code, call.arguments.language) == ("rm -rf /tmp/forbidden", "bash")
    [result] = [step for step in interaction.steps if step.type == "code_execution_result"]
    assert result.is_error is True
    assert result.result == 'Tool call denied by hook "security-gate": Destructive command blocked by security gate.'
    assert "Destructive command blocked by security gate." in interaction.output_text

    # The same gate lets a harmless command through, in the same sandbox.
    allowed = client.interactions.create(
        agent="antigravity-preview-05-2026",
        input="Run `echo allowed` using code_execution.",
        tools=[{"type": "code_execution"}],
        environment=interaction.environment_id,
    )
    [result] = [step for step in allowed.steps if step.type == "code_execution_result"]
    assert result.is_error is False
    assert result.result == "allowed\n"
