"""The emulator's configuration variables as the user gives them: `NAME=value` lines (the ini's
`interactions_emulator_settings`, or `--interactions-emulator-setting NAME=value`). Pure: checked
here, before anything starts, so that a typo is one clear error instead of an emulator that exits."""

import re

# Decided by the plugin for each session: the free port, loopback, a throwaway data folder, a label of
# its own (so teardown removes exactly this session's sandboxes), and any key accepted (each test's
# fresh key must be). Inherited from the environment they would contradict the fixture, so they never are.
OWN_SETTINGS = ("PORT", "HOST", "EMULATOR_DATA_DIR", "EMULATOR_INSTANCE", "EMULATOR_API_KEYS")

_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


class SettingsError(ValueError):
    pass


def parse_settings(lines):
    """`["EMULATOR_X=1", "# a comment", ""]` -> `{"EMULATOR_X": "1"}`; a later line wins."""
    settings = {}
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, equals, value = line.partition("=")
        name = name.strip()
        if not equals:
            raise SettingsError(
                f"interactions_emulator_settings line {number} ({line!r}) is not NAME=value, e.g. EMULATOR_TOOL_TIMEOUT_SECONDS=30"
            )
        if not _NAME.match(name):
            raise SettingsError(
                f"interactions_emulator_settings line {number}: {name!r} is not a variable name (upper case, digits, _), e.g. EMULATOR_TOOL_TIMEOUT_SECONDS"
            )
        if name in OWN_SETTINGS:
            raise SettingsError(
                f"interactions_emulator_settings line {number}: {name} is decided by the plugin for each session "
                f"({', '.join(OWN_SETTINGS)} are); leave it out"
            )
        settings[name] = value.strip()
    return settings


def child_environment(inherited, settings):
    """The emulator process's environment: ours without the plugin's own variables, then the user's settings."""
    environment = {name: value for name, value in inherited.items() if name not in OWN_SETTINGS}
    environment.update(settings)
    return environment
