"""`--interactions-emulator-mode=docker`: the emulator and its egress proxy as the repository's
docker-compose.yml runs them (docs/setup.md#docker-compose), under a compose project of the session's
own, the API published on a free loopback port of the host. An override file the plugin writes carries
the session's label and the user's settings into the emulator's container (compose passes only the
variables its file names). The images are tagged once (`interactions-emulator-pytest:local`) and kept,
so only the first session builds them; `down -v` removes the stack's containers, network and volume,
and the sandboxes the emulator made on the host's engine go by label like the local mode's."""

import json
import os
import secrets
import shutil
import socket
import subprocess
import time

from .child import Runner, follow, spawn
from .health import wait_healthy

IMAGE = "interactions-emulator-pytest:local"
STOP_GRACE_SECONDS = 60


class ComposeError(RuntimeError):
    pass


def compose_command(which=shutil.which, run=subprocess.run):
    """`docker compose` (v2) where present, else `docker-compose` (1.29, Debian's)."""
    if which("docker") and run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    if which("docker-compose"):
        return ["docker-compose"]
    raise ComposeError("--interactions-emulator-mode=docker needs `docker compose` or `docker-compose`; neither is installed")


def override_document(instance, settings):
    """The compose override (JSON is YAML): the session's label, the user's settings, the kept image tag."""
    environment = dict(settings)
    environment["EMULATOR_INSTANCE"] = instance
    return {
        "version": "3.8",
        "services": {
            "proxy": {"image": IMAGE},
            "emulator": {"image": IMAGE, "environment": environment},
        },
    }


def compose_argv(compose, project, files, *action):
    argv = [*compose, "-p", project]
    for file in files:
        argv += ["-f", file]
    return argv + list(action)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ComposeEmulator(Runner):
    mode = "docker"

    def __init__(self, repository, instance, data_dir, settings, startup_timeout, progress):
        super().__init__(repository, instance, data_dir, settings, startup_timeout, progress)
        self._compose = None
        self._project = f"iemu-{instance}".lower()
        self._files = [os.path.join(repository, "docker-compose.yml"), os.path.join(data_dir, "pytest-override.json")]
        self._environment = None
        self._started = False

    def _run(self, *action, timeout):
        argv = compose_argv(self._compose, self._project, self._files, *action)
        process, output = spawn(argv, self.repository, self._environment)
        how, _ = follow(process, output, time.monotonic() + timeout, self._progress)
        if how == "timeout":
            process.kill()
            raise ComposeError(f"`{' '.join(argv)}` took more than {timeout:g} s; its output:\n{output.tail()}")
        if process.returncode != 0:
            raise ComposeError(f"`{' '.join(argv)}` failed ({process.returncode}); its output:\n{output.tail()}")

    def start(self):
        self._compose = compose_command()
        with open(self._files[1], "w", encoding="utf-8") as handle:
            json.dump(override_document(self.instance, self._settings), handle)
        port = free_port()
        self._environment = {
            **os.environ,
            "EMULATOR_HOST_PORT": str(port),
            "EMULATOR_PROXY_SECRET": os.environ.get("EMULATOR_PROXY_SECRET") or secrets.token_hex(24),
        }
        deadline = time.monotonic() + self._startup_timeout
        self._started = True
        try:
            self._run("up", "-d", "--build", timeout=self._startup_timeout)
            url = f"http://127.0.0.1:{port}"
            if not wait_healthy(url, deadline):
                raise ComposeError(f"{url}/health did not answer 200 within {self._startup_timeout:g} s")
        except Exception:
            self.stop()
            raise
        return url

    def stop(self):
        if not self._started:
            return
        self._started = False
        self._run("down", "-v", "--remove-orphans", "-t", str(STOP_GRACE_SECONDS), timeout=STOP_GRACE_SECONDS + 120)
