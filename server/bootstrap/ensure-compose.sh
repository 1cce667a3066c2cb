#!/usr/bin/env bash
# Makes sure a docker-compose command is there, for the docker-compose test (test/e2e/compose.test.ts)
# and for people who run the emulator with docker-compose.yml. Either Compose v2 (`docker compose`, a
# plugin of the Docker CLI) or the older `docker-compose` 1.29 will do. Debian bookworm packages only
# the latter, so when neither is there and we are root on a Debian-like system, `docker-compose` is
# installed from Debian's packages, the way ensure-docker.sh installs the engine; otherwise it says what
# to run. Prints the command to use.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/debian-package.sh"

if docker compose version >/dev/null 2>&1; then
  echo "docker compose"
  exit 0
fi
if command -v docker-compose >/dev/null 2>&1; then
  echo "docker-compose"
  exit 0
fi
install_from_debian docker-compose "the docker-compose test and docker-compose.yml"
case $? in
  0) echo "docker-compose"; exit 0 ;;
  1) exit 1 ;;
esac
echo "error: neither \`docker compose\` nor \`docker-compose\` is installed; install one (Debian: sudo apt-get install docker-compose)" >&2
exit 1
