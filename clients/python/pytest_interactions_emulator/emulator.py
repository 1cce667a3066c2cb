"""The handle tests get: where the emulator is, a key, SDK clients, and the emulator's own routes.

`start_emulator()` is the fixture's engine and usable without pytest (a script, another runner):
it starts one emulator with a label and data folder of its own, and `stop()` stops it and removes
every container, volume and fork image carrying that label, then the folder."""

import json
import os
import secrets
import shutil
import tempfile
import urllib.error
import urllib.request

from .cleanup import remove_instance_objects
from .compose import ComposeEmulator
from .local import LocalEmulator
from .locate import find_repository

MODES = ("local", "docker")


def new_api_key(prefix="pytest-key"):
    """A fresh key: the emulator accepts any non-empty key, and each key owns its own resources."""
    return f"{prefix}-{secrets.token_hex(8)}"


class EmulatorError(RuntimeError):
    """An /emulator/... route answered an error: `status` and the Google-style `body`."""

    def __init__(self, method, path, status, body):
        message = body.get("error", {}).get("message") if isinstance(body, dict) else None
        super().__init__(f"{method} {path}: {status} {message or body}")
        self.status = status
        self.body = body


class InteractionsEmulator:
    def __init__(self, base_url, api_key, instance=None, data_dir=None, runner=None):
        self.base_url = base_url
        self.api_key = api_key
        self.instance = instance
        self.data_dir = data_dir
        self.mode = runner.mode if runner else "url"
        self.removed = None
        self._runner = runner
        self._stopped = False
        # google.genai.Client closes its HTTP connection when it is garbage-collected, so a
        # `emulator.client().interactions.create(...)` would fail: the handle keeps its clients alive.
        self._clients = []

    def __repr__(self):
        return f"<InteractionsEmulator {self.base_url} mode={self.mode} instance={self.instance}>"

    def new_api_key(self, prefix="pytest-key"):
        return new_api_key(prefix)

    def client(self, api_key=None, **http_options):
        """A `google.genai.Client` pointed at the emulator, with this emulator's key or the one given."""
        from google import genai

        client = genai.Client(api_key=api_key or self.api_key, http_options={"base_url": self.base_url, **http_options})
        self._clients.append(client)
        return client

    def close_client(self, client):
        """Closes a client from client() and lets it go (the function-scoped fixture does, after each test)."""
        if client in self._clients:
            self._clients.remove(client)
        client.close()

    def dashboard_url(self, api_key=None):
        return f"{self.base_url}/ui?key={api_key or self.api_key}"

    def request(self, method, path, body=None, api_key=None, timeout=60):
        """One call of the emulator's own routes (`/emulator/faults`, `/emulator/interactions/{id}/hooks`,
        `/emulator/hooks/coverage`, …): the parsed JSON answer, or EmulatorError."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"x-goog-api-key": api_key or self.api_key}
        if data is not None:
            headers["content-type"] = "application/json"
        request = urllib.request.Request(f"{self.base_url}{path}", data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            text = error.read().decode("utf-8", "replace")
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = text
            raise EmulatorError(method, path, error.code, parsed) from None
        return json.loads(text) if text else None

    def stop(self):
        """Stops the emulator, removes everything of its instance on the engine, then its data folder. Safe twice.
        Returns what was removed ({"containers", "volumes", "images"}); raises if something could not be."""
        for client in list(self._clients):
            self.close_client(client)
        if self._stopped or self._runner is None:
            return self.removed
        self._stopped = True
        try:
            self._runner.stop()
        finally:
            # Whatever stopping managed, the sandboxes go (a killed emulator leaves them running).
            self.removed = remove_instance_objects(self.instance)
            if self.data_dir:
                shutil.rmtree(self.data_dir, ignore_errors=True)
        return self.removed


def start_emulator(root=None, mode="local", settings=None, startup_timeout=900, progress=None, api_key=None, rootdir=None):
    """Starts an emulator; see InteractionsEmulator. `progress` gets each line it prints while starting."""
    if mode not in MODES:
        raise ValueError(f"interactions emulator mode {mode!r}: use one of {', '.join(MODES)}")
    repository = find_repository(option_root=root, rootdir=rootdir)
    instance = f"pytest-{secrets.token_hex(5)}"
    data_dir = tempfile.mkdtemp(prefix="interactions-emulator-pytest-")
    runner_class = LocalEmulator if mode == "local" else ComposeEmulator
    runner = runner_class(repository, instance, data_dir, settings or {}, startup_timeout, progress or (lambda line: None))
    handle = InteractionsEmulator(None, api_key or new_api_key("pytest-session"), instance, data_dir, runner)
    try:
        handle.base_url = runner.start()
    except BaseException as error:
        # A start that failed, or Ctrl-C while the image builds: nothing of it is left. Should the
        # clean-up fail too, the start's own error is the one raised, with the clean-up's as a note.
        try:
            handle.stop()
        except Exception as cleanup:
            if hasattr(error, "add_note"):
                error.add_note(f"and cleaning up after it: {cleanup}")
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)
        raise
    return handle
