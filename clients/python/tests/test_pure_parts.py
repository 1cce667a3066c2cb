# The plugin's pure parts: settings lines, finding the repository, the compose override, following a
# child's output (with a child of this Python, not the emulator).
import os
import sys
import time

import pytest

from pytest_interactions_emulator.child import follow, spawn
from pytest_interactions_emulator.compose import ComposeEmulator, ComposeError, compose_argv, override_document
from pytest_interactions_emulator.locate import RootNotFound, find_repository
from pytest_interactions_emulator.settings import SettingsError, child_environment, parse_settings


def test_settings_lines_become_variables_and_a_later_line_wins():
    lines = ["# timeouts", "EMULATOR_TOOL_TIMEOUT_SECONDS = 30", "", "EMULATOR_X=a=b", "EMULATOR_X=c"]
    assert parse_settings(lines) == {"EMULATOR_TOOL_TIMEOUT_SECONDS": "30", "EMULATOR_X": "c"}


@pytest.mark.parametrize(
    "line, says",
    [
        ("EMULATOR_X", "is not NAME=value"),
        ("emulator_x=1", "is not a variable name"),
        ("EMULATOR_INSTANCE=mine", "EMULATOR_INSTANCE is decided by the plugin"),
        ("EMULATOR_API_KEYS=a,b", "EMULATOR_API_KEYS is decided by the plugin"),
    ],
)
def test_a_bad_settings_line_is_refused_naming_it(line, says):
    with pytest.raises(SettingsError, match=says):
        parse_settings(["EMULATOR_OK=1", line])


def test_the_plugins_own_variables_are_never_inherited():
    environment = child_environment({"PORT": "8080", "EMULATOR_INSTANCE": "theirs", "PATH": "/bin"}, {"EMULATOR_X": "1"})
    assert environment == {"PATH": "/bin", "EMULATOR_X": "1"}


def make_repository(folder):
    os.makedirs(folder / "bin")
    (folder / "bin" / "interactions-emulator.mjs").write_text("")
    return str(folder)


def test_a_given_root_wins_and_a_wrong_one_is_an_error(tmp_path):
    repository = make_repository(tmp_path / "clone")
    assert find_repository(option_root=repository, environ={}) == repository
    assert find_repository(environ={"INTERACTIONS_EMULATOR_ROOT": repository}) == repository
    with pytest.raises(RootNotFound, match="INTERACTIONS_EMULATOR_ROOT is .*elsewhere, which holds no"):
        find_repository(environ={"INTERACTIONS_EMULATOR_ROOT": str(tmp_path / "elsewhere")}, recorded=repository)


def test_the_recorded_root_then_the_folders_above_the_rootdir(tmp_path):
    repository = make_repository(tmp_path / "clone")
    assert find_repository(environ={}, recorded=repository) == repository
    suite = tmp_path / "clone" / "python" / "tests"
    suite.mkdir(parents=True)
    assert find_repository(environ={}, recorded=str(tmp_path / "gone"), rootdir=str(suite), here=str(tmp_path)) == repository
    with pytest.raises(RootNotFound, match=r"built from .*gone, which no longer holds it\): set --interactions-emulator-root"):
        find_repository(environ={}, recorded=str(tmp_path / "gone"), rootdir=str(tmp_path), here=str(tmp_path))


def test_compose_gets_the_sessions_label_and_settings_in_an_override(tmp_path):
    document = override_document("pytest-abc", {"EMULATOR_X": "1"})
    assert document["services"]["emulator"]["environment"] == {"EMULATOR_X": "1", "EMULATOR_INSTANCE": "pytest-abc"}
    assert document["services"]["emulator"]["image"] == document["services"]["proxy"]["image"]
    argv = compose_argv(["docker", "compose"], "iemu-pytest-abc", ["a.yml", "b.json"], "up", "-d")
    assert argv == ["docker", "compose", "-p", "iemu-pytest-abc", "-f", "a.yml", "-f", "b.json", "up", "-d"]


def _follow_child(code, seconds, until=None):
    process, output = spawn([sys.executable, "-c", code], None, None)
    seen = []
    try:
        return follow(process, output, time.monotonic() + seconds, seen.append, until), seen
    finally:
        process.kill()
        process.wait()


def test_following_a_child_stops_at_the_line_asked_for():
    code = "import time; print('a'); print('ready at 7', flush=True); time.sleep(60)"
    (how, line), seen = _follow_child(code, 30, until=lambda line: line.startswith("ready"))
    assert (how, line, seen) == ("matched", "ready at 7", ["a", "ready at 7"])


def test_following_a_child_that_exits_hands_on_every_line_it_printed():
    (how, line), seen = _follow_child("import sys; print('a'); print('b', file=sys.stderr)", 30, until=lambda line: False)
    assert (how, line, sorted(seen)) == ("exited", None, ["a", "b"])


def test_following_a_child_ends_at_the_deadline_even_while_it_keeps_printing():
    (how, line), seen = _follow_child("import time\nwhile True: print('busy', flush=True); time.sleep(0.01)", 1)
    assert (how, line) == ("timeout", None)
    assert seen and set(seen) == {"busy"}


def test_a_compose_command_that_fails_is_an_error_with_its_output(tmp_path):
    runner = ComposeEmulator(str(tmp_path), "pytest-x", str(tmp_path), {}, 30, lambda line: None)
    seen = []
    runner._progress = seen.append
    # The "compose" here is this Python: it ignores the project, files and action it is given.
    runner._compose = [sys.executable, "-c", "import sys; print('pulling'); sys.exit(3)"]
    with pytest.raises(ComposeError, match=r"failed \(3\); its output:\npulling"):
        runner._run("up", timeout=30)
    assert seen == ["pulling"]
