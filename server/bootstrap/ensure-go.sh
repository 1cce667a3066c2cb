#!/usr/bin/env bash
# Makes sure Go is there to build the sandbox's executor (a static binary, build-executor.mjs), so that
# `npm start` and `npm test` work on a fresh machine: when `go` is missing and we are root on a
# Debian-like system, Debian's golang-go is installed (it builds the executor offline: the module
# needs nothing but Go's standard library), the way ensure-docker.sh installs the engine; otherwise it
# says what to run.
set -u

if command -v go >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Go from Debian's packages (golang-go: it builds the sandbox's executor)…"
  if apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null; then
    exit 0
  fi
  echo "error: apt-get install golang-go failed" >&2
  exit 1
fi
echo "error: the sandbox's executor is written in Go, and \`go\` is not installed; install Go 1.19 or newer (Debian: sudo apt-get install golang-go)" >&2
exit 1
