#!/usr/bin/env bash
# Makes sure Go is there to build the sandbox's executor (a static binary, build-executor.mjs), so that
# `npm start` and `npm test` work on a fresh machine: when `go` is missing and we are root on a
# Debian-like system, Debian's golang-go is installed (it builds the executor offline: the module
# needs nothing but Go's standard library), the way ensure-docker.sh installs the engine; otherwise it
# says what to run.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/debian-package.sh"

if command -v go >/dev/null 2>&1; then exit 0; fi
install_from_debian golang-go "it builds the sandbox's executor"
case $? in
  0) exit 0 ;;
  1) exit 1 ;;
esac
echo "error: the sandbox's executor is written in Go, and \`go\` is not installed; install Go 1.19 or newer (Debian: sudo apt-get install golang-go)" >&2
exit 1
