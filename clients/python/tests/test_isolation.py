# Each test's interactions_client has a key of its own, and each key owns its own resources: what one
# key made, another can neither read nor list.
import pytest

AGENT = "antigravity-preview-05-2026"


def test_each_test_gets_a_fresh_key(interactions_emulator, interactions_api_key):
    assert interactions_api_key != interactions_emulator.api_key
    assert interactions_api_key != interactions_emulator.new_api_key()


def test_what_one_key_made_another_cannot_see(interactions_emulator, interactions_client):
    made = interactions_client.interactions.create(
        agent=AGENT,
        input="Run `echo mine` using code_execution.",
        tools=[{"type": "code_execution"}],
        environment={"type": "remote"},
    )
    assert made.status == "completed"
    assert interactions_client.interactions.get(made.id).id == made.id

    other = interactions_emulator.client(api_key=interactions_emulator.new_api_key("other"))
    with pytest.raises(Exception) as hidden:
        other.interactions.get(made.id)
    assert hidden.value.status_code == 404
    with pytest.raises(Exception) as hidden:
        other.environments.get(made.environment_id)
    assert hidden.value.status_code == 404
    listed = other.environments.list()
    assert made.environment_id not in [environment.id for environment in (listed.environments or [])]


def test_the_emulator_routes_are_per_key_too(interactions_emulator, interactions_api_key):
    rule = {"target": {"kind": "hook", "command": "python3 /never.py"}, "effect": {"kind": "error", "message": "x"}}
    interactions_emulator.request("POST", "/emulator/faults", rule, api_key=interactions_api_key)
    assert len(interactions_emulator.request("GET", "/emulator/faults", api_key=interactions_api_key)["rules"]) == 1
    assert interactions_emulator.request("GET", "/emulator/faults")["rules"] == []
