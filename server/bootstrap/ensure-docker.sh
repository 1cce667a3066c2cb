#!/usr/bin/env bash
# Makes sure a Docker engine answers. Used by `npm start`, `npm test` and .ci/run, so each works on a
# fresh machine: when no engine runs and we are root on a Debian-like system, docker.io is installed
# from Debian's packages and dockerd is started; otherwise it says exactly what to do.
#
# The dockerd it starts belongs to the machine, not to whoever ran `npm start`: it runs in a session of
# its own (setsid), with stdin from /dev/null and its output in a log file, so Ctrl-C, the end of a CI
# job or `timeout npm start` (each of which signals the caller's whole process group) never reach it,
# and every sandbox on the machine keeps running.
#
# Sourcing this file defines the functions without running anything (the tests start a fake daemon
# with start_engine). EMULATOR_DOCKERD names the daemon to start (default: dockerd) and
# EMULATOR_DOCKERD_LOG its log file (default: /var/log/emulator-dockerd.log).
set -u

DOCKERD="${EMULATOR_DOCKERD:-dockerd}"
DOCKERD_LOG="${EMULATOR_DOCKERD_LOG:-/var/log/emulator-dockerd.log}"

engine_answers() {
  if command -v docker >/dev/null 2>&1; then
    timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1
  else
    local socket="${DOCKER_HOST:-unix:///var/run/docker.sock}"
    socket="${socket#unix://}"
    timeout 10 curl -fsS --unix-socket "$socket" http://localhost/_ping >/dev/null 2>&1
  fi
}

# Starts the daemon detached from the caller (own session and process group, no terminal, no stdin),
# then waits up to 60 s until the engine answers.
start_engine() {
  echo "starting $DOCKERD (log: $DOCKERD_LOG)…"
  if command -v setsid >/dev/null 2>&1; then
    setsid "$DOCKERD" </dev/null >>"$DOCKERD_LOG" 2>&1 &
  else
    echo "warning: setsid is missing (util-linux); $DOCKERD shares this shell's process group" >&2
    nohup "$DOCKERD" </dev/null >>"$DOCKERD_LOG" 2>&1 &
  fi
  # Not a job of this shell: nothing here waits for it or signals it again.
  disown 2>/dev/null || true
  for _ in $(seq 1 60); do
    if engine_answers; then
      echo "Docker engine is up"
      return 0
    fi
    sleep 1
  done
  echo "error: $DOCKERD did not answer within 60 s; see $DOCKERD_LOG:" >&2
  tail -n 20 "$DOCKERD_LOG" >&2
  return 1
}

main() {
  if engine_answers; then return 0; fi

  if [ -n "${DOCKER_HOST:-}" ]; then
    echo "error: the Docker engine at DOCKER_HOST=$DOCKER_HOST does not answer; start it or unset DOCKER_HOST" >&2
    return 1
  fi
  if [ "$(id -u)" != 0 ]; then
    cat >&2 <<'MSG'
error: no Docker engine is running. Start one, then run this again:
  sudo systemctl start docker      (or: sudo setsid dockerd > /tmp/dockerd.log 2>&1 < /dev/null &)
and make sure your user may use it (sudo usermod -aG docker "$USER", then log in again).
MSG
    return 1
  fi

  if ! command -v "$DOCKERD" >/dev/null 2>&1; then
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "error: no Docker engine is installed and apt-get is not available; install Docker and start it" >&2
      return 1
    fi
    echo "installing the Docker engine (docker.io) from Debian's packages…"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null \
      || { echo "error: apt-get install docker.io failed" >&2; return 1; }
  fi

  start_engine
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main
  exit $?
fi
