"""Where the emulator's repository is: the clone whose `bin/interactions-emulator.mjs` the plugin runs.

In this order: the option or ini value, `INTERACTIONS_EMULATOR_ROOT`, the folder recorded when the
package was built from a clone (setup.py), and the folders above this file and above pytest's rootdir
(an editable install, or a suite inside the clone). The first that is given decides: a root set by the
user that is wrong is an error naming it, never silently replaced by another one."""

import os

ENV_ROOT = "INTERACTIONS_EMULATOR_ROOT"
CLI = os.path.join("bin", "interactions-emulator.mjs")
COMPILED_CLI = os.path.join("dist", "server", "cli", "main.js")
_RECORD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_build_root.txt")

HOW_TO_SET = (
    "set --interactions-emulator-root=DIR, `interactions_emulator_root = DIR` in the pytest ini file, or "
    f"{ENV_ROOT}=DIR to a clone of interactions-sandbox-emulator (the folder with bin/interactions-emulator.mjs)"
)


class RootNotFound(RuntimeError):
    pass


def is_repository(folder):
    return bool(folder) and os.path.isfile(os.path.join(folder, CLI))


def _recorded_root():
    try:
        with open(_RECORD, encoding="utf-8") as handle:
            return handle.read().strip() or None
    except OSError:
        return None


def _upwards(start):
    folder = os.path.abspath(start)
    while True:
        yield folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def find_repository(option_root=None, environ=None, rootdir=None, recorded=None, here=None):
    """The repository's absolute path; raises RootNotFound saying what to set."""
    environ = os.environ if environ is None else environ
    for given, where in ((option_root, "--interactions-emulator-root / interactions_emulator_root"), (environ.get(ENV_ROOT), ENV_ROOT)):
        if given:
            folder = os.path.abspath(os.path.expanduser(given))
            if not is_repository(folder):
                raise RootNotFound(f"{where} is {folder}, which holds no {CLI}: point it at a clone of interactions-sandbox-emulator")
            return folder
    candidates = []
    recorded = _recorded_root() if recorded is None else recorded
    if recorded:
        candidates.append(recorded)
    candidates.extend(_upwards(here or os.path.dirname(os.path.abspath(__file__))))
    if rootdir:
        candidates.extend(_upwards(rootdir))
    for folder in candidates:
        if is_repository(folder):
            return os.path.abspath(folder)
    looked = recorded and f" (the package was built from {recorded}, which no longer holds it)" or ""
    raise RootNotFound(f"the emulator's repository was not found{looked}: {HOW_TO_SET}")


def check_built(repository):
    """The CLI needs the compiled TypeScript; say how to make it rather than show node's module error."""
    if not os.path.isfile(os.path.join(repository, COMPILED_CLI)):
        raise RootNotFound(
            f"{os.path.join(repository, COMPILED_CLI)} is missing: the emulator has not been built. "
            f"Run `npm start` once (it installs, compiles and builds the sandbox image) or `npm run build` in {repository}"
        )
