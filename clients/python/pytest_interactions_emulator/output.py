"""A child process's output, read line by line on a thread of its own (so that a chatty or silent child
never blocks the test run), queued for whoever is waiting on start-up, and its tail kept for the error
message when it fails. Everything also goes to the `interactions_emulator` logger, which pytest's log
capture shows beside a failing test."""

import collections
import logging
import queue
import threading

logger = logging.getLogger("interactions_emulator")


class OutputReader:
    def __init__(self, stream, tail_lines=60):
        self._stream = stream
        self._lines = queue.Queue()
        self._tail = collections.deque(maxlen=tail_lines)
        # Only start-up is waited on line by line; afterwards lines go to the log and the tail only,
        # so a long session's output does not pile up in memory.
        self.queueing = True
        self._thread = threading.Thread(target=self._read, name="interactions-emulator-output", daemon=True)
        self._thread.start()

    def _read(self):
        for raw in iter(self._stream.readline, ""):
            line = raw.rstrip("\r\n")
            self._tail.append(line)
            logger.info("%s", line)
            if self.queueing:
                self._lines.put(line)
        self._stream.close()

    def next_line(self, timeout):
        """The next line, or None when none came within `timeout` seconds."""
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def tail(self):
        return "\n".join(self._tail)

    def join(self, timeout):
        self._thread.join(timeout)
