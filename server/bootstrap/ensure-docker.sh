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
# gVisor (docs/setup.md#gvisor): when runsc is installed, or EMULATOR_SANDBOX_RUNTIME=runsc asks for it
# (then it is installed from Debian's packages like docker.io), runsc is registered with the engine this
# script started: a `runtimes` entry in its daemon.json, then SIGHUP, on which dockerd reloads its
# runtimes (a reload, not a restart: every container keeps running). An engine this script did not start
# is never touched: asked for runsc, it fails saying how to register it.
#
# Sourcing this file defines the functions without running anything (the tests start a fake daemon
# with start_engine). EMULATOR_DOCKERD names the daemon to start (default: dockerd) and
# EMULATOR_DOCKERD_LOG its log file (default: /var/log/emulator-dockerd.log); for the tests' fake
# daemon, EMULATOR_DOCKERD_PIDFILE the file the daemon writes its pid to (default: dockerd's,
# /var/run/docker.pid), EMULATOR_DOCKERD_CONFIG the config file it reads (default: dockerd's,
# /etc/docker/daemon.json) and EMULATOR_RUNSC the runsc to register (default: runsc on PATH).
set -u

DOCKERD="${EMULATOR_DOCKERD:-dockerd}"
DOCKERD_LOG="${EMULATOR_DOCKERD_LOG:-/var/log/emulator-dockerd.log}"
DOCKERD_PIDFILE="${EMULATOR_DOCKERD_PIDFILE:-/var/run/docker.pid}"
DOCKERD_CONFIG="${EMULATOR_DOCKERD_CONFIG:-/etc/docker/daemon.json}"
# How long an engine this set-up started, running but not answering, is waited for before it is called hung.
ENGINE_WAIT_SECONDS="${EMULATOR_ENGINE_WAIT_SECONDS:-60}"
RUNSC="${EMULATOR_RUNSC:-runsc}"
# ptrace: the platform that runs without /dev/kvm (in a VM, in CI). --network=none: sandboxes have no
# network anyway (NetworkMode "none"), and bookworm's runsc (2022) takes every network namespace of a
# recent kernel for the host's and refuses to start. --file-access=shared: the emulator writes into
# running sandboxes (a warm pool sandbox's sources, a newer executor) and commits them (forks); gVisor's
# default (exclusive) keeps serving a replaced file's old content from its cache. Kept in step with
# RUNSC_DAEMON_ENTRY in server/sandbox/docker/container-runtime.ts.
RUNSC_ARGS='["--platform=ptrace","--network=none","--file-access=shared"]'

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

# The engine's runtimes as JSON (`docker info`'s Runtimes), or nothing when it does not answer.
engine_runtimes() {
  if command -v docker >/dev/null 2>&1; then
    timeout 10 docker info --format '{{json .Runtimes}}' 2>/dev/null
  else
    local socket="${DOCKER_HOST:-unix:///var/run/docker.sock}"
    socket="${socket#unix://}"
    timeout 10 curl -fsS --unix-socket "$socket" http://localhost/info 2>/dev/null
  fi
}

engine_has_runtime() {
  engine_runtimes | grep -q "\"$1\":"
}

# Whether the engine's runsc is registered with the arguments this script gives it.
engine_has_our_runsc() {
  engine_runtimes | grep -o '"runsc":{[^}]*}' | grep -qF "\"runtimeArgs\":$RUNSC_ARGS}"
}

# The pid of the engine when it is the one start_engine started (at this run or an earlier one): the
# daemon named in dockerd's pid file writes its output to our log file. Nothing, and failure, otherwise
# (DOCKER_HOST elsewhere, an engine of systemd's or Docker Desktop's).
our_engine_pid() {
  [ -z "${DOCKER_HOST:-}" ] || return 1
  local pid
  pid="$(cat "$DOCKERD_PIDFILE" 2>/dev/null)" || return 1
  [ -n "$pid" ] && [ -e "/proc/$pid/fd/1" ] || return 1
  [ "$(readlink -f "/proc/$pid/fd/1")" = "$(readlink -f "$DOCKERD_LOG")" ] || return 1
  echo "$pid"
}

# Adds (or replaces) the runsc entry of the daemon's config file, keeping everything else in it.
write_runsc_entry() {
  local runsc_path="$1"
  if ! command -v node >/dev/null 2>&1; then
    echo "error: node is needed to edit $DOCKERD_CONFIG" >&2
    return 1
  fi
  node - "$DOCKERD_CONFIG" "$runsc_path" "$RUNSC_ARGS" <<'JS'
const fs = require("node:fs");
const path = require("node:path");
const [file, runsc, args] = process.argv.slice(2);
let config = {};
if (fs.existsSync(file)) {
  const text = fs.readFileSync(file, "utf8");
  try {
    if (text.trim() !== "") config = JSON.parse(text);
  } catch (error) {
    console.error(`error: ${file} is not valid JSON (${error.message}); fix it, then run this again`);
    process.exit(1);
  }
}
config.runtimes = { ...(config.runtimes ?? {}), runsc: { path: runsc, runtimeArgs: JSON.parse(args) } };
fs.mkdirSync(path.dirname(file), { recursive: true });
// Whole or not at all: dockerd never reads half a file.
fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(config, null, 2)}\n`);
fs.renameSync(`${file}.tmp`, file);
JS
}

# Registers runsc with the engine when it is installed or EMULATOR_SANDBOX_RUNTIME=runsc asks for it.
ensure_runsc() {
  local wanted=""
  [ "${EMULATOR_SANDBOX_RUNTIME:-}" = runsc ] && wanted=yes
  local runsc_path
  runsc_path="$(command -v "$RUNSC" 2>/dev/null || true)"
  if [ -z "$runsc_path" ] && [ -z "$wanted" ]; then return 0; fi

  local pid
  if ! pid="$(our_engine_pid)"; then
    # Someone else's engine: registered by hand (as its owner chose) or not at all.
    if engine_has_runtime runsc || [ -z "$wanted" ]; then return 0; fi
    cat >&2 <<MSG
error: EMULATOR_SANDBOX_RUNTIME=runsc, but the Docker engine has no runtime named runsc, and it is not
one this set-up started (${DOCKER_HOST:+DOCKER_HOST=$DOCKER_HOST, }no dockerd of ours in $DOCKERD_PIDFILE), so it is left alone.
Register gVisor with it yourself: install runsc (Debian: apt-get install runsc), add
  "runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": $RUNSC_ARGS}}
to its daemon.json (usually /etc/docker/daemon.json) and reload it (sudo systemctl reload docker,
or sudo kill -HUP \$(cat /var/run/docker.pid): a reload, not a restart); \`docker info\` then lists runsc.
Or unset EMULATOR_SANDBOX_RUNTIME. See docs/setup.md#gvisor.
MSG
    return 1
  fi
  # Ours, but it does not say which runtimes it has (`docker info` unanswered within 10 s: hung, or
  # overloaded): neither rewritten nor signalled. A reload helps nothing there; on this project's machine
  # one sent to an engine hung in libnetwork's deadlock left even its version unanswered after it.
  if [ -z "$(engine_runtimes)" ]; then
    cat >&2 <<MSG
error: the Docker engine answers its version but not \`docker info\` within 10 s, so whether runsc is
registered with it is unknown; nothing was changed. An engine that stopped answering (Docker 20.10 can
deadlock in libnetwork when many containers change at once) needs a restart; then run this again.
MSG
    return 1
  fi
  # Ours: registered as this version of the script registers it (an older one gave other arguments).
  if engine_has_our_runsc; then return 0; fi

  if [ -z "$runsc_path" ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
      echo "error: EMULATOR_SANDBOX_RUNTIME=runsc, but runsc is not installed; install it (Debian: apt-get install runsc) and run this again" >&2
      return 1
    fi
    echo "installing gVisor (runsc) from Debian's packages…"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq runsc >/dev/null \
      || { echo "error: apt-get install runsc failed" >&2; return 1; }
    runsc_path="$(command -v "$RUNSC" 2>/dev/null || true)"
    [ -n "$runsc_path" ] || { echo "error: the runsc package is installed but runsc is not on PATH" >&2; return 1; }
  fi

  echo "registering gVisor ($runsc_path) with the Docker engine as runtime runsc (in $DOCKERD_CONFIG; dockerd reloads it on SIGHUP)…"
  write_runsc_entry "$runsc_path" || return 1
  kill -HUP "$pid" || { echo "error: cannot signal dockerd ($pid) to reload $DOCKERD_CONFIG" >&2; return 1; }
  for _ in $(seq 1 20); do
    if engine_has_our_runsc; then
      echo "Docker engine has runtime runsc"
      return 0
    fi
    sleep 0.5
  done
  echo "error: dockerd did not take runtime runsc from $DOCKERD_CONFIG within 10 s; see $DOCKERD_LOG:" >&2
  tail -n 20 "$DOCKERD_LOG" >&2
  return 1
}

main() {
  ensure_engine || return 1
  if ensure_runsc; then return 0; fi
  # Asked for, gVisor must be there; merely installed, it is no reason to stop anyone's `npm start`.
  [ "${EMULATOR_SANDBOX_RUNTIME:-}" = runsc ] && return 1
  echo "warning: runsc is installed but could not be registered with the Docker engine (above); EMULATOR_SANDBOX_RUNTIME=runsc will not work" >&2
  return 0
}

ensure_engine() {
  if engine_answers; then return 0; fi

  if [ -n "${DOCKER_HOST:-}" ]; then
    echo "error: the Docker engine at DOCKER_HOST=$DOCKER_HOST does not answer; start it or unset DOCKER_HOST" >&2
    return 1
  fi
  # The engine this set-up started runs but does not answer: still starting (another `npm start` started
  # it a moment ago), or hung. Waited for; never a second one started beside it.
  local pid
  if pid="$(our_engine_pid)"; then
    echo "the Docker engine this set-up started (dockerd, pid $pid) runs but does not answer; waiting up to $ENGINE_WAIT_SECONDS s…"
    local until=$((SECONDS + ENGINE_WAIT_SECONDS))
    while [ "$SECONDS" -lt "$until" ]; do
      if engine_answers; then return 0; fi
      sleep 1
    done
    cat >&2 <<MSG
error: the Docker engine this set-up started (dockerd, pid $pid) runs but has not answered its version
for $ENGINE_WAIT_SECONDS s: it is hung (Docker 20.10 can deadlock in libnetwork when many containers
change at once). Restart it: stop it (kill $pid), wait for it to exit, then run this again, which
starts it. Its log: $DOCKERD_LOG
MSG
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
