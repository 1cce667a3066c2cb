// Whether node_modules holds what package-lock.json asks for, built for this Node.js, so that `npm
// start` / `npm test` run `npm ci` only when it does not. Plain JavaScript with no dependencies: it
// runs before anything is installed.
//
// Our own stamp (node_modules/.emulator-deps-stamp: a hash of the lock file and the Node.js version) is
// written after the `npm ci` we run. A user's own `npm ci` writes no stamp of ours but a record of its
// own: node_modules/.package-lock.json, npm's "hidden lockfile", the packages it installed. Where that
// record matches the lock file and was written after our stamp (or there is none), the install is
// npm's of this very lock, and only the Node.js it was built for is unknown: the native modules are
// loaded by this Node.js (a module built for another ABI refuses to load) before it is taken and
// stamped. So `npm ci && npm test` installs once, and a changed lock or Node.js still reinstalls.

import { createHash } from "node:crypto";

export const STAMP_FILE = "node_modules/.emulator-deps-stamp";
export const NPM_RECORD_FILE = "node_modules/.package-lock.json";

/** The stamp our install writes: the lock file and the Node.js version it was built for. */
export function wantedStamp(lockText, nodeVersion) {
  return createHash("sha256").update(lockText).update(nodeVersion).digest("hex");
}

/**
 * Whether npm's record of an install (its hidden lockfile) is an install of this lock file: every
 * package it installed is the lock's, as the lock has it, and every package of the lock it did not
 * install is an optional one (another platform's binary, e.g. @biomejs/cli-darwin-arm64).
 */
export function npmInstalledLock(lock, record) {
  const wanted = lock?.packages;
  const installed = record?.packages;
  if (!wanted || typeof wanted !== "object" || !installed || typeof installed !== "object") return false;
  for (const [location, entry] of Object.entries(installed)) {
    if (location === "") continue;
    if (!(location in wanted) || canonical(entry) !== canonical(wanted[location])) return false;
  }
  for (const [location, entry] of Object.entries(wanted)) {
    if (location === "" || location in installed) continue;
    if (entry?.optional !== true) return false;
  }
  return true;
}

/** JSON with keys sorted, so that two records equal in content compare equal whatever their key order. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * What to do about node_modules:
 * - "current": our stamp matches (the lock and this Node.js);
 * - "check-npm-install": npm installed this lock after our last stamp (or without one): current if its
 *   native modules load in this Node.js, then stamp it;
 * - "install": anything else (no node_modules, another lock, another Node.js since our stamp).
 *
 * `stamp` and `record` are the files' contents (null when missing), `stampMtimeMs` and `recordMtimeMs`
 * their modification times.
 */
export function dependencyDecision({ lockText, nodeVersion, stamp, stampMtimeMs, record, recordMtimeMs }) {
  const wanted = wantedStamp(lockText, nodeVersion);
  if (stamp !== null && stamp.trim() === wanted) return "current";
  if (record === null) return "install";
  // A stamp newer than npm's record is ours for an install since changed (lock or Node.js): reinstall.
  if (stamp !== null && !(recordMtimeMs > stampMtimeMs)) return "install";
  let lock;
  let installed;
  try {
    lock = JSON.parse(lockText);
    installed = JSON.parse(record);
  } catch {
    return "install";
  }
  return npmInstalledLock(lock, installed) ? "check-npm-install" : "install";
}

/** The native modules, loaded (not only found) as the emulator loads them: a module built for another Node.js ABI throws. */
export const NATIVE_MODULES_PROGRAM = 'new (require("better-sqlite3"))(":memory:").close(); new (require("re2"))("a");';
