#!/usr/bin/env bash
# Makes sure Debian's busybox-static is there for the test of a sandbox FROM BusyBox alone
# (test/e2e/base-image-without-node.test.ts): its root filesystem is the host's /bin/busybox, one static
# binary, and the links of its applets, so it is built without a registry. Installed when missing, as
# root on a Debian-like system, the way ensure-docker.sh installs the engine; otherwise it says what to run.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/debian-package.sh"

if [ -x /bin/busybox ]; then exit 0; fi
install_from_debian busybox-static "the test of a sandbox FROM BusyBox alone"
case $? in
  0) exit 0 ;;
  1) exit 1 ;;
esac
echo "error: /bin/busybox is missing, so the test of a sandbox FROM BusyBox alone cannot build its base; install it (Debian: sudo apt-get install busybox-static)" >&2
exit 1
