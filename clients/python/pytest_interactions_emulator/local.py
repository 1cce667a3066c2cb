"""The emulator as a child process: this repository's `bin/interactions-emulator.mjs start` on a free
port (`--port 0`: the emulator binds, then prints the URL it got, so no port is picked and lost to a
race), with a throwaway data folder and a label of its own. Stopped as a terminal would stop it
(SIGTERM: running interactions end `failed`), killed when that takes longer than a bound."""

import os
import re
import shutil
import signal
import subprocess
import sys
import time

from .child import Runner, follow, spawn
from .health import wait_healthy
from .locate import CLI, check_built
from .settings import child_environment

LISTENING = re.compile(r"listening on (http://\S+)")
STOP_GRACE_SECONDS = 30


class StartError(RuntimeError):
    pass


def _die_with_parent():
    # Linux: the emulator gets SIGTERM when the pytest process dies without a teardown (SIGKILL, a
    # crash), instead of serving on as an orphan. Elsewhere the teardown and atexit have to do.
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except Exception:
            pass


class LocalEmulator(Runner):
    mode = "local"

    def __init__(self, repository, instance, data_dir, settings, startup_timeout, progress):
        super().__init__(repository, instance, data_dir, settings, startup_timeout, progress)
        self._process = None
        self._output = None

    def start(self):
        """Starts it; returns the base URL once /health answers. Raises StartError with the output's tail."""
        check_built(self.repository)
        node = shutil.which("node")
        if node is None:
            raise StartError("`node` (Node.js 20 or newer) is not on PATH: the emulator's command line needs it")
        argv = [node, os.path.join(self.repository, CLI), "start", "--port", "0", "--host", "127.0.0.1", "--data-dir", self.data_dir]
        environment = child_environment(os.environ, self._settings)
        environment["EMULATOR_INSTANCE"] = self.instance
        self._process, self._output = spawn(
            argv,
            self.repository,
            environment,
            # Its own session: the terminal's Ctrl-C reaches pytest, whose teardown stops the emulator
            # in order, not both at once.
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        deadline = time.monotonic() + self._startup_timeout
        how, line = follow(self._process, self._output, deadline, self._progress, until=LISTENING.search)
        if how == "timeout":
            self._fail(f"the emulator did not print its URL within {self._startup_timeout:g} s (interactions_emulator_startup_timeout)")
        if how == "exited":
            self._fail(f"the emulator exited with status {self._process.returncode} before it was ready")
        url = LISTENING.search(line).group(1)
        if not wait_healthy(url, deadline, alive=lambda: self._process.poll() is None):
            self._fail(f"{url}/health did not answer 200")
        self._output.queueing = False
        return url

    def _fail(self, reason):
        self.stop()
        tail = self._output.tail() if self._output else ""
        raise StartError(f"{reason}; its output:\n{tail}" if tail else reason)

    def stop(self):
        """SIGTERM, then SIGKILL after STOP_GRACE_SECONDS. Safe to call twice."""
        process = self._process
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if self._output:
            self._output.join(2)
