#!/usr/bin/env bash
# Builds a Debian bookworm base image from Debian's packages, for machines where no container registry
# answers (so `FROM debian:bookworm-slim` cannot be pulled). The result is tagged as the image name given
# (default: emulator-base:bookworm) and is used as BASE_IMAGE for sandbox-image/Dockerfile.
#
# The sandbox's packages are included here already, so the Dockerfile's install step finds nothing
# missing and needs no network inside `docker build`.
#
# Usage: build-base.sh [image-tag]   (needs root for debootstrap, and a running Docker engine)
# Env:   DEBIAN_MIRROR (default http://deb.debian.org/debian), DEBIAN_SUITE (default bookworm)
set -euo pipefail

tag="${1:-emulator-base:bookworm}"
suite="${DEBIAN_SUITE:-bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# The sandbox's convenience tools (Node.js among them, for code that runs `node`, as before); the
# executor is a static binary and needs none of them.
packages="bash,coreutils,python3,nodejs,git,curl,ca-certificates,procps"

if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "base image $tag already present"
  exit 0
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing debootstrap from Debian's packages…"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  else
    echo "error: debootstrap is not installed (apt-get install debootstrap), and no registry can serve $tag" >&2
    exit 1
  fi
fi
if [ "$(id -u)" != 0 ]; then
  echo "error: building the offline base image needs root (debootstrap); run: sudo $0 $tag" >&2
  exit 1
fi

work="$(mktemp -d /tmp/emulator-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

echo "building $tag from Debian $suite packages (debootstrap; a few minutes the first time)…"
# Progress: debootstrap's stage lines only (its per-package lines run to hundreds).
debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror" 2>&1 \
  | grep --line-buffered -E '^(I: (Retrieving Release|Validating Packages|Resolving dependencies of (required|base)|Checking component|Installing core packages|Unpacking the base system|Configuring the base system|Base system installed)|E: |W: )' \
  | sed -u 's/^I: /  base image: /' || true
if [ ! -x "$rootfs/usr/bin/python3" ] || [ ! -x "$rootfs/usr/bin/git" ]; then
  echo "error: debootstrap did not produce a usable root filesystem (see above)" >&2
  exit 1
fi

# Same trimming as debian:bookworm-slim: no package lists or caches in the image.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/tmp/* "$rootfs"/var/tmp/*
echo "importing into Docker as $tag…"
tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["bash"]' - "$tag" >/dev/null
echo "base image $tag ready"
