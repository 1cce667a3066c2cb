"""The pytest plugin (entry point `pytest11`): options, and the fixtures

- `interactions_emulator` (session): one emulator for the run, started on first use, stopped at the
  end with every sandbox it made removed;
- `interactions_api_key` (function): a fresh key per test; each key owns its own environments,
  interactions, faults and coverage, so tests cannot see each other's;
- `interactions_client` (function): a `google.genai.Client` with that key.

With pytest-xdist each worker is a session of its own, with its own emulator and label."""

import os
import time

import pytest

from .emulator import MODES, InteractionsEmulator, new_api_key, start_emulator
from .settings import SettingsError, parse_settings

# Start-up lines are shown on the terminal only once a start is slow (the sandbox image build on a
# fresh machine takes minutes), or always with -v; a warm start stays silent. They are all logged.
SHOW_PROGRESS_AFTER_SECONDS = 2.0


def pytest_addoption(parser):
    group = parser.getgroup("interactions-emulator", "the Gemini Interactions API emulator")
    group.addoption("--interactions-emulator-root", help="the emulator's repository (a clone with bin/interactions-emulator.mjs)")
    group.addoption("--interactions-emulator-mode", choices=MODES, help="local: its command line (default); docker: its docker-compose.yml")
    group.addoption(
        "--interactions-emulator-setting", action="append", default=[], metavar="NAME=value",
        help="a configuration variable for the emulator (repeatable), added to interactions_emulator_settings",
    )
    group.addoption("--interactions-emulator-startup-timeout", type=float, metavar="SECONDS", help="how long start-up may take (default 900)")
    group.addoption("--interactions-emulator-url", help="use an emulator already running there: nothing is started, stopped or removed")
    parser.addini("interactions_emulator_root", "the emulator's repository; relative to the ini file", default="")
    parser.addini("interactions_emulator_mode", "local (default) or docker", default="local")
    parser.addini("interactions_emulator_settings", "NAME=value lines: configuration variables for the emulator", type="linelist", default=[])
    parser.addini("interactions_emulator_startup_timeout", "seconds start-up may take", default="900")
    parser.addini("interactions_emulator_url", "an emulator already running there", default="")


class Options:
    def __init__(self, config):
        self.config = config
        ini_root = config.getini("interactions_emulator_root")
        if ini_root and config.inipath is not None and not os.path.isabs(os.path.expanduser(ini_root)):
            ini_root = os.path.join(os.path.dirname(str(config.inipath)), ini_root)
        self.root = config.getoption("interactions_emulator_root") or ini_root or None
        self.mode = config.getoption("interactions_emulator_mode") or config.getini("interactions_emulator_mode")
        if self.mode not in MODES:
            raise pytest.UsageError(f"interactions_emulator_mode = {self.mode!r}: use one of {', '.join(MODES)}")
        try:
            self.settings = parse_settings(list(config.getini("interactions_emulator_settings")) + config.getoption("interactions_emulator_setting"))
        except SettingsError as error:
            raise pytest.UsageError(str(error)) from None
        timeout = config.getoption("interactions_emulator_startup_timeout") or config.getini("interactions_emulator_startup_timeout")
        try:
            self.startup_timeout = float(timeout)
        except ValueError:
            raise pytest.UsageError(f"interactions_emulator_startup_timeout = {timeout!r} is not a number of seconds") from None
        if self.startup_timeout <= 0:
            raise pytest.UsageError("interactions_emulator_startup_timeout must be more than 0 seconds")
        self.url = (config.getoption("interactions_emulator_url") or config.getini("interactions_emulator_url") or "").rstrip("/") or None


def pytest_configure(config):
    # Wrong options are a usage error before any test runs, not an error in every test.
    config.stash[_OPTIONS] = Options(config)
    config.stash[_SUMMARY] = []


_OPTIONS = pytest.StashKey()
_SUMMARY = pytest.StashKey()


class _Progress:
    def __init__(self, config):
        self._reporter = config.pluginmanager.getplugin("terminalreporter")
        self._capture = config.pluginmanager.getplugin("capturemanager")
        self._verbose = config.getoption("verbose") > 0
        self._started = time.monotonic()
        self._held = []

    def _show(self, lines):
        if self._reporter is None:
            return
        if self._capture is not None:
            with self._capture.global_and_fixture_disabled():
                for line in lines:
                    self._reporter.write_line(f"interactions-emulator: {line}")
        else:
            for line in lines:
                self._reporter.write_line(f"interactions-emulator: {line}")

    def __call__(self, line):
        self._held.append(line)
        if self._verbose or time.monotonic() - self._started > SHOW_PROGRESS_AFTER_SECONDS:
            self._show(self._held)
            self._held = []


@pytest.fixture(scope="session")
def interactions_emulator(request):
    """The session's emulator: `.base_url`, `.api_key`, `.client(api_key=None)`, `.request(method, path, body)`,
    `.new_api_key()`, `.dashboard_url()`, `.instance`, `.data_dir`."""
    options = request.config.stash[_OPTIONS]
    if options.url:
        yield InteractionsEmulator(options.url, new_api_key("pytest-session"))
        return
    try:
        emulator = start_emulator(
            root=options.root,
            mode=options.mode,
            settings=options.settings,
            startup_timeout=options.startup_timeout,
            progress=_Progress(request.config),
            rootdir=str(request.config.rootpath),
        )
    except (RuntimeError, ValueError) as error:
        pytest.fail(f"interactions emulator: {error}", pytrace=False)
    summary = request.config.stash[_SUMMARY]
    try:
        yield emulator
    finally:
        try:
            removed = emulator.stop()
            summary.append(
                f"instance {emulator.instance} ({emulator.mode}, {emulator.base_url}) stopped; removed "
                f"{removed['containers']} container(s), {removed['volumes']} volume(s), {removed['images']} image(s)"
            )
        except Exception as error:
            summary.append(f"instance {emulator.instance}: {error}")
            raise


@pytest.fixture
def interactions_api_key():
    """A fresh API key for this test alone."""
    return new_api_key()


@pytest.fixture
def interactions_client(interactions_emulator, interactions_api_key):
    """A `google.genai.Client` for this test's own key."""
    client = interactions_emulator.client(api_key=interactions_api_key)
    yield client
    interactions_emulator.close_client(client)


def pytest_terminal_summary(terminalreporter, config):
    lines = config.stash.get(_SUMMARY, [])
    if lines:
        terminalreporter.section("interactions emulator")
        for line in lines:
            terminalreporter.write_line(f"interactions-emulator: {line}")
