"""Waiting for `GET /health` to answer 200: the emulator's own readiness signal."""

import time
import urllib.error
import urllib.request


def is_healthy(base_url, timeout=2.0):
    try:
        with urllib.request.urlopen(f"{base_url}/health", timeout=timeout) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def wait_healthy(base_url, deadline, alive=lambda: True, interval=0.25):
    """True once /health answers; False when `deadline` (time.monotonic()) passes or `alive()` turns false."""
    while time.monotonic() < deadline and alive():
        if is_healthy(base_url):
            return True
        time.sleep(interval)
    return False
