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
# (nodejs.org's and NodeSource's builds do; the build below runs `node --version` in the image to make
# sure) runs in the image as it runs here. The headers let node-gyp compile the native modules without
# downloading them from nodejs.org; npm in the image trusts the CA file npm here trusts (`npm config get
# cafile`, e.g. where a TLS-inspecting proxy sits in front of the npm registry) and uses the same
# registry. Where a registry is reachable, NODE_IMAGE=node:20-bookworm-slim needs none of this.
#
# Idempotent: the image carries a label with a hash of everything that went into it (Node.js version,
# base image ID, npm settings, this script), and is rebuilt only when that changes.
#
# Usage: build-node-image.sh [tag]   (default interactions-emulator-node:local)
# Env:   NODE_BINARY  the node to copy (default: the `node` on PATH; the set-up passes its own)
#        NODE_IMAGE_BASE  the image to build FROM (default: emulator-base:bookworm if present, else
#        ${EMULATOR_BASE_IMAGE:-debian:bookworm-slim} if present)
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

base="${NODE_IMAGE_BASE:-}"
if [ -z "$base" ]; then
  for candidate in emulator-base:bookworm "${EMULATOR_BASE_IMAGE:-debian:bookworm-slim}"; do
    if docker image inspect "$candidate" >/dev/null 2>&1; then
      base="$candidate"
      break
    fi
  done
fi
[ -n "$base" ] || fail "no base image to build on: run npm run image first (it builds emulator-base:bookworm where no registry answers)"
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
# Checks in the image that this Node.js runs on the base's C library before anything is built on it.
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && echo "node $(node --version), npm $(npm --version) run in the image"
CMD ["node"]
DOCKERFILE

key="$( (
  echo "$version $node_arch $base_id"
  cat "$work/npmrc" "$work/npm-ca.pem" "${BASH_SOURCE[0]}"
) | sha256sum | cut -c1-16)"
if [ "$(docker image inspect --format "{{index .Config.Labels \"$label\"}}" "$tag" 2>/dev/null || true)" = "$key" ]; then
  echo "Node.js image $tag already present"
  exit 0
fi

previous="$(docker image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)"
echo "building Node.js image $tag: $base + node $version from $prefix…"
mkdir -p "$work/node/bin" "$work/node/include" "$work/node/lib/node_modules"
cp "$node_bin" "$work/node/bin/node"
cp -R "$headers" "$work/node/include/node"
cp -R "$npm_dir" "$work/node/lib/node_modules/npm"
if ! output="$(docker build --build-arg "BASE_IMAGE=$base" --label "$label=$key" -t "$tag" "$work" 2>&1)"; then
  echo "$output" | tail -n 20 >&2
  fail "building $tag failed (above)"
fi
echo "$output" | grep -E '^node v.* run in the image$' | sed 's/^/  /' || true
# The image it replaces (another Node.js, base or npm setting) would stay behind untagged; it goes
# unless something still uses it.
if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect --format '{{.Id}}' "$tag")" ]; then
  docker rmi "$previous" >/dev/null 2>&1 || true
fi
echo "Node.js image $tag ready"
