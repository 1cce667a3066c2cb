# The plugin as a user meets it: a five-line test file in a fresh folder, run by pytest in a process of
# its own. While the test runs, its sandbox is a container on the engine with the session's label;
# after pytest exits, nothing with that label is left.
import re
import subprocess

FIVE_LINES = '''
import subprocess
def test_a_sandbox_runs(interactions_emulator):
    interaction = interactions_emulator.client().interactions.create(agent="antigravity-preview-05-2026", input="Run `echo hi` using code_execution.", tools=[{"type": "code_execution"}], environment={"type": "remote"})
    assert interaction.status == "completed" and interaction.output_text.endswith("hi")
    print("INSTANCE", interactions_emulator.instance, subprocess.run(["docker", "ps", "-aq", "--filter", f"label=dev.interactions-emulator.instance={interactions_emulator.instance}"], capture_output=True, text=True).stdout.split())
'''


def engine_objects(instance):
    label = f"label=dev.interactions-emulator.instance={instance}"
    listed = {}
    for kind, argv in {"containers": ["ps", "-aq"], "volumes": ["volume", "ls", "-q"], "images": ["images", "-q"]}.items():
        completed = subprocess.run(["docker", *argv, "--filter", label], capture_output=True, text=True, check=True)
        listed[kind] = completed.stdout.split()
    return listed


def test_a_session_removes_every_sandbox_it_made(pytester):
    pytester.makepyfile(test_agent=FIVE_LINES)
    result = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    output = result.stdout.str()
    match = re.search(r"INSTANCE (pytest-[0-9a-f]+) \[(.*)\]", output)
    assert match, output
    instance, containers_during = match.group(1), match.group(2)
    assert containers_during.strip(), "the test's sandbox was a container with the session's label while it ran"
    assert re.search(rf"instance {instance} \(local, http://127\.0\.0\.1:\d+\) stopped; removed [1-9]\d* container", output), output
    assert engine_objects(instance) == {"containers": [], "volumes": [], "images": []}


def test_a_setting_the_plugin_decides_is_a_usage_error(pytester):
    pytester.makepyfile(test_nothing="def test_nothing(interactions_emulator):\n    pass\n")
    result = pytester.runpytest_subprocess("-o", "interactions_emulator_settings=PORT=9999")
    assert result.ret == 4, result.stdout.str() + result.stderr.str()
    result.stderr.fnmatch_lines(["*PORT is decided by the plugin for each session*"])


def test_a_wrong_root_says_what_to_set(pytester):
    pytester.makepyfile(test_nothing="def test_nothing(interactions_emulator):\n    pass\n")
    result = pytester.runpytest_subprocess(f"--interactions-emulator-root={pytester.path}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*--interactions-emulator-root / interactions_emulator_root is {pytester.path}, which holds no bin/interactions-emulator.mjs*"])


def test_a_running_emulator_can_be_used_instead_and_is_left_alone(pytester, interactions_emulator):
    pytester.makepyfile(
        test_there=f"""
def test_there(interactions_emulator, interactions_client):
    assert interactions_emulator.base_url == "{interactions_emulator.base_url}" and interactions_emulator.mode == "url"
    assert interactions_client.interactions.create(agent="antigravity-preview-05-2026", input="Hello").status == "completed"
"""
    )
    result = pytester.runpytest_subprocess(f"--interactions-emulator-url={interactions_emulator.base_url}/", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "stopped; removed" not in result.stdout.str()
    assert interactions_emulator.request("GET", "/emulator/faults")["rules"] == [], "the session's emulator still answers"
