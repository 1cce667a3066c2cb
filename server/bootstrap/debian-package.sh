#!/usr/bin/env bash
# Installs one of Debian's packages for `npm start` or `npm test` on a fresh machine, the way
# ensure-docker.sh installs the engine: only as root on a Debian-like system (apt-get), with one line
# saying what is installed and why; elsewhere nothing is installed and the caller says what to run.
# Sourced by the ensure-*.sh scripts: it defines install_from_debian and runs nothing.

# install_from_debian PACKAGE PURPOSE: 0 installed, 1 apt-get failed, 2 not root or no apt-get.
# Progress goes to stderr, so that a script whose stdout is its answer (ensure-compose.sh) keeps it clean.
install_from_debian() {
  local package="$1" purpose="$2"
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then return 2; fi
  echo "installing $package from Debian's packages ($purpose)…" >&2
  if apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null; then
    return 0
  fi
  echo "error: apt-get install $package failed" >&2
  return 1
}
