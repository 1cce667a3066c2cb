"""What the local and the docker mode share: the runner's fields, and a child process (the emulator,
or `docker compose`) started with its output read line by line and followed until a line says it is
ready, it exits, or a deadline passes."""

import subprocess
import time

from .output import OutputReader


class Runner:
    """A mode's way of starting the emulator: start() returns its base URL, stop() is safe to call twice."""

    mode = None

    def __init__(self, repository, instance, data_dir, settings, startup_timeout, progress):
        self.repository = repository
        self.instance = instance
        self.data_dir = data_dir
        self._settings = settings
        self._startup_timeout = startup_timeout
        self._progress = progress


def spawn(argv, cwd, env, **options):
    """Starts argv, its stdout and stderr as one stream read by an OutputReader; returns both."""
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", bufsize=1,
        **options,
    )
    return process, OutputReader(process.stdout)


def follow(process, output, deadline, progress, until=None):
    """Hands each line to `progress` until `until(line)` is true, the process exits, or time.monotonic()
    passes `deadline` (checked before each line, so a chatty child is bounded too). Returns
    ("matched", line), ("exited", None) once every line it printed was handed on, or ("timeout", None)."""
    while True:
        if time.monotonic() > deadline:
            return "timeout", None
        line = output.next_line(timeout=0.25)
        if line is not None:
            progress(line)
            if until is not None and until(line):
                return "matched", line
        elif process.poll() is not None:
            output.join(2)
            while (line := output.next_line(timeout=0)) is not None:
                progress(line)
            return "exited", None
