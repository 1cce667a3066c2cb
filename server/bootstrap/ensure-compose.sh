#!/usr/bin/env bash
# Makes sure a docker-compose command is there, for the docker-compose test (test/e2e/compose.test.ts)
# and for people who run the emulator with docker-compose.yml. Either Compose v2 (`docker compose`, a
# plugin of the Docker CLI) or the older `docker-compose` 1.29 will do. Debian bookworm packages only
# the latter, so when neither is there and we are root on a Debian-like system, `docker-compose` is
# installed from Debian's packages, the way ensure-docker.sh installs the engine; otherwise it says what
# to run. Prints the command to use.
set -u

if docker compose version >/dev/null 2>&1; then
  echo "docker compose"
  exit 0
fi
if command -v docker-compose >/dev/null 2>&1; then
  echo "docker-compose"
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing docker-compose from Debian's packages…" >&2
  if apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null; then
    echo "docker-compose"
    exit 0
  fi
  echo "error: apt-get install docker-compose failed" >&2
  exit 1
fi
echo "error: neither \`docker compose\` nor \`docker-compose\` is installed; install one (Debian: sudo apt-get install docker-compose)" >&2
exit 1
