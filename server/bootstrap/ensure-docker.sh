#!/usr/bin/env bash
# Makes sure a Docker engine answers. Used by `npm start`, `npm test` and .ci/run, so each works on a
# fresh machine: when no engine runs and we are root on a Debian-like system, docker.io is installed
# from Debian's packages and dockerd is started; otherwise it says exactly what to do.
set -u

engine_answers() {
  if command -v docker >/dev/null 2>&1; then
    timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1
  else
    local socket="${DOCKER_HOST:-unix:///var/run/docker.sock}"
    socket="${socket#unix://}"
    timeout 10 curl -fsS --unix-socket "$socket" http://localhost/_ping >/dev/null 2>&1
  fi
}

if engine_answers; then exit 0; fi

if [ -n "${DOCKER_HOST:-}" ]; then
  echo "error: the Docker engine at DOCKER_HOST=$DOCKER_HOST does not answer; start it or unset DOCKER_HOST" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  cat >&2 <<'MSG'
error: no Docker engine is running. Start one, then run this again:
  sudo systemctl start docker      (or: sudo dockerd > /tmp/dockerd.log 2>&1 &)
and make sure your user may use it (sudo usermod -aG docker "$USER", then log in again).
MSG
  exit 1
fi

if ! command -v dockerd >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: no Docker engine is installed and apt-get is not available; install Docker and start it" >&2
    exit 1
  fi
  echo "installing the Docker engine (docker.io) from Debian's packages…"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null \
    || { echo "error: apt-get install docker.io failed" >&2; exit 1; }
fi

echo "starting dockerd (log: /var/log/emulator-dockerd.log)…"
nohup dockerd >/var/log/emulator-dockerd.log 2>&1 &
for _ in $(seq 1 60); do
  if engine_answers; then echo "Docker engine is up"; exit 0; fi
  sleep 1
done
echo "error: dockerd did not answer within 60 s; see /var/log/emulator-dockerd.log:" >&2
tail -n 20 /var/log/emulator-dockerd.log >&2
exit 1
