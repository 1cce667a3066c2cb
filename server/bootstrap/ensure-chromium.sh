#!/usr/bin/env bash
# Makes sure a Chromium is installed for the dashboard's browser test (test/e2e/dashboard.test.ts,
# driven by playwright-core, which downloads no browser of its own). Used by `npm test` when that test
# is among the files to run, the same way ensure-docker.sh makes sure of the Docker engine: when no
# browser is found and we are root on a Debian-like system, Debian's `chromium` is installed with
# apt-get, its progress shown; otherwise it says how to install one. On success the browser's path is
# the last line printed.
#
# EMULATOR_CHROMIUM names the browser to use (any Chromium or Chrome binary); nothing is then installed.
# Sourcing this file defines the functions without running anything.
set -u

# The names Debian, Ubuntu and Google's packages install, in order of preference.
CHROMIUM_NAMES="chromium chromium-browser google-chrome-stable google-chrome"

find_chromium() {
  if [ -n "${EMULATOR_CHROMIUM:-}" ]; then
    [ -x "$EMULATOR_CHROMIUM" ] && [ ! -d "$EMULATOR_CHROMIUM" ] && echo "$EMULATOR_CHROMIUM"
    return
  fi
  local name found
  for name in $CHROMIUM_NAMES; do
    if found=$(command -v "$name" 2>/dev/null); then
      echo "$found"
      return 0
    fi
  done
  return 1
}

main() {
  local found
  if found=$(find_chromium); then
    echo "$found"
    return 0
  fi
  if [ -n "${EMULATOR_CHROMIUM:-}" ]; then
    echo "error: EMULATOR_CHROMIUM=$EMULATOR_CHROMIUM is not an executable file; point it at a Chromium or Chrome binary" >&2
    return 1
  fi
  if [ "$(id -u)" != 0 ]; then
    cat >&2 <<'MSG'
Chromium is not installed, so the dashboard's browser test cannot run. Install it, then run the tests again:
  sudo apt-get install chromium      (Debian; on Ubuntu: chromium-browser)
or point EMULATOR_CHROMIUM at a Chromium or Chrome binary.
MSG
    return 1
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: Chromium is not installed and apt-get is not available; install Chromium or set EMULATOR_CHROMIUM" >&2
    return 1
  fi
  echo "installing Chromium (chromium) from Debian's packages for the dashboard's browser test…"
  apt-get update -q || { echo "error: apt-get update failed" >&2; return 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium \
    || { echo "error: apt-get install chromium failed" >&2; return 1; }
  if ! found=$(find_chromium); then
    echo "error: chromium was installed but is not on PATH" >&2
    return 1
  fi
  echo "$found"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main
  exit $?
fi
