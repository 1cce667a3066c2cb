#!/usr/bin/env bash
# Builds the Node.js image docker-compose.yml builds its services FROM by default
# (NODE_IMAGE=interactions-emulator-node:local), without a container registry: the base image the
# sandbox image is built on (emulator-base:bookworm, made from Debian's packages by
# sandbox-image/build-base.sh; or debian:bookworm-slim where that was pulled) plus THIS machine's
# Node.js runtime, copied in: the `node` binary running the set-up, its npm, and its C headers.
#
# Why this way: Debian bookworm packages only Node.js 18, and the server needs 20 (better-sqlite3 12,
# re2 1.24), so no Node.js 20 can be apt-installed into an image; but the Node.js that runs `npm start`
# is a Node.js 20+ for this machine's architecture, and a Linux build of it that runs on bookworm's glibc
# (nodejs.org's and NodeSource's builds do; it is tried on the base before anything is built) runs in
# the image as it runs here. The headers let node-gyp compile the native modules without
# downloading them from nodejs.org; npm in the image trusts the CA file npm here trusts (`npm config get
# cafile`, e.g. where a TLS-inspecting proxy sits in front of the npm registry) and uses the same
# registry. Where a registry is reachable, NODE_IMAGE=node:20-bookworm-slim needs none of this.
#
# Idempotent: the image carries a label with a hash of everything that goes into it (the Node.js binary,
# the base image's ID, the Dockerfile, npm's settings), and is rebuilt only when that changes.
#
# Usage: build-node-image.sh [tag]   (default interactions-emulator-node:local)
# Env:   NODE_BINARY  the node to copy (default: the `node` on PATH; the set-up passes its own)
#        NODE_IMAGE_BASE  the image to build FROM (default: the sandbox image's base, found below)
#        EMULATOR_BASE_IMAGE, EMULATOR_OFFLINE_BASE  as for the emulator (README's configuration)
set -euo pipefail

tag="${1:-interactions-emulator-node:local}"
label="dev.interactions-emulator.node-runtime"
node_bin="${NODE_BINARY:-$(command -v node || true)}"

fail() {
  echo "error: $1" >&2
  echo "  (docker compose can instead build on a registry's image: NODE_IMAGE=node:20-bookworm-slim docker compose up --build)" >&2
  exit 1
}

[ -n "$node_bin" ] && [ -x "$node_bin" ] || fail "no node binary to copy (NODE_BINARY or node on PATH)"
node_bin="$("$node_bin" -p 'process.execPath')"
[ "$(uname -s)" = Linux ] || fail "the Node.js of a $(uname -s) machine cannot run in a Linux image"
version="$("$node_bin" -p 'process.version')"
[ "$("$node_bin" -p 'Number(process.versions.node.split(".")[0]) >= 20')" = true ] || fail "node $version is older than 20"
# Docker names architectures as Node.js does (x64 → amd64 being the exception).
node_arch="$("$node_bin" -p 'process.arch === "x64" ? "amd64" : process.arch')"
engine_arch="$(docker version --format '{{.Server.Arch}}')"
[ "$node_arch" = "$engine_arch" ] || fail "this Node.js is for $node_arch, the Docker engine runs $engine_arch images"

# The layout of every Node.js distribution (nodejs.org's tarballs, NodeSource's packages, nvm):
# <prefix>/bin/node, <prefix>/include/node, <prefix>/lib/node_modules/npm.
prefix="$(dirname "$(dirname "$node_bin")")"
npm_dir="$prefix/lib/node_modules/npm"
headers="$prefix/include/node"
[ -f "$npm_dir/bin/npm-cli.js" ] || fail "npm is not at $npm_dir, where this Node.js distribution keeps it"
[ -f "$headers/node_version.h" ] || fail "the C headers of this Node.js are not at $headers (node-gyp needs them to compile the native modules offline)"

# The base, found as the emulator finds the sandbox image's (server/sandbox/docker/image.ts), so both
# images share it and `npm start` can run this before the emulator builds the sandbox image: the
# configured one if present or pullable; else the offline base, built from Debian's packages if missing
# (EMULATOR_OFFLINE_BASE=never forbids building it, always skips the configured one).
offline_base="emulator-base:bookworm"
configured="${EMULATOR_BASE_IMAGE:-debian:bookworm-slim}"
mode="${EMULATOR_OFFLINE_BASE:-auto}"
present() { docker image inspect "$1" >/dev/null 2>&1; }
base="${NODE_IMAGE_BASE:-}"
if [ -z "$base" ]; then
  if [ "$mode" != always ] && { present "$configured" || docker pull -q "$configured" >/dev/null 2>&1; }; then
    base="$configured"
  elif present "$offline_base"; then
    base="$offline_base"
  elif [ "$mode" != never ]; then
    bash "$(dirname "${BASH_SOURCE[0]}")/../../sandbox-image/build-base.sh" "$offline_base" >&2 || fail "the offline base image could not be built (above)"
    base="$offline_base"
  else
    fail "no base image: $configured is neither present nor pullable, no $offline_base is present, and EMULATOR_OFFLINE_BASE=never"
  fi
fi
base_id="$(docker image inspect --format '{{.Id}}' "$base")" || fail "base image $base is not present"

work="$(mktemp -d /tmp/emulator-node-image.XXXXXX)"
trap 'rm -rf "$work"' EXIT

# npm's settings in the image (<prefix>/etc/npmrc, npm's global config file): node-gyp finds the headers
# at nodedir instead of downloading them; the registry and CA file are those npm uses here.
npm() { "$node_bin" "$npm_dir/bin/npm-cli.js" "$@"; }
registry="$(npm config get registry)"
cafile="$(npm config get cafile)"
{
  echo "nodedir=/usr/local"
  echo "registry=$registry"
  echo "update-notifier=false"
  echo "fund=false"
  echo "audit=false"
} >"$work/npmrc"
: >"$work/npm-ca.pem"
if [ -n "$cafile" ] && [ "$cafile" != undefined ] && [ "$cafile" != null ]; then
  [ -r "$cafile" ] || fail "npm's cafile $cafile cannot be read"
  cp "$cafile" "$work/npm-ca.pem"
  echo "cafile=/usr/local/etc/npm-ca.pem" >>"$work/npmrc"
fi

cat >"$work/Dockerfile" <<'DOCKERFILE'
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
COPY node/bin/node /usr/local/bin/node
COPY node/include/node /usr/local/include/node
COPY node/lib/node_modules/npm /usr/local/lib/node_modules/npm
COPY npmrc npm-ca.pem /usr/local/etc/
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && node --version >/dev/null && npm --version >/dev/null
CMD ["node"]
DOCKERFILE

key="$( (
  echo "$version $node_arch $base_id $(stat -c '%s %Y' "$node_bin")"
  cat "$work/Dockerfile" "$work/npmrc" "$work/npm-ca.pem"
) | sha256sum | cut -c1-16)"
if [ "$(docker image inspect --format "{{index .Config.Labels \"$label\"}}" "$tag" 2>/dev/null || true)" = "$key" ]; then
  echo "Node.js image $tag already present"
  exit 0
fi

previous="$(docker image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)"
echo "building Node.js image $tag: $base + node $version from $prefix…"
# First, whether this node runs on the base's C library at all, in a throwaway container (docker cp, so a
# remote engine works too): a build that failed later would leave its steps' images behind.
check="$(docker create --network none "$base" /tmp/emulator-node-check --version)"
trap 'rm -rf "$work"; docker rm -f "$check" >/dev/null 2>&1 || true' EXIT
docker cp "$node_bin" "$check:/tmp/emulator-node-check" >/dev/null
ran="$(docker start -a "$check" 2>&1)" || fail "this Node.js ($node_bin) does not run on $base: $ran"
mkdir -p "$work/node/bin" "$work/node/include" "$work/node/lib/node_modules"
cp "$node_bin" "$work/node/bin/node"
cp -R "$headers" "$work/node/include/node"
cp -R "$npm_dir" "$work/node/lib/node_modules/npm"
if ! output="$(docker build --force-rm --build-arg "BASE_IMAGE=$base" --label "$label=$key" -t "$tag" "$work" 2>&1)"; then
  echo "$output" | tail -n 20 >&2
  fail "building $tag failed (above)"
fi
# Once more outside the build, whose step above is cached for a binary it has seen: the image runs them.
if ! ran="$(docker run --rm --network none "$tag" sh -c 'echo "node $(node --version), npm $(npm --version) run in the image"' 2>&1)"; then
  docker rmi "$tag" >/dev/null 2>&1 || true
  fail "node does not run in $tag: $ran"
fi
echo "  $ran"
# The image it replaces (another Node.js, base or npm setting) would stay behind untagged; it goes
# unless something still uses it.
if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect --format '{{.Id}}' "$tag")" ]; then
  docker rmi "$previous" >/dev/null 2>&1 || true
fi
echo "Node.js image $tag ready"
