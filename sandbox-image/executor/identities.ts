// Who the executor acts as. In a sandbox container the executor runs as root with only CAP_SETUID and
// CAP_SETGID, so that the code it serves (uid 1000) can neither signal nor trace it; it starts each
// command as the identity the request names and does file operations through a worker that acts as
// the sandbox user (file-worker.ts). The identities come from the command line:
//
//   node main.js --identity sandbox=1000:1000:/home/sandbox --identity hooks=1001:1001:/home/hooks
//
// Without them (the local executor, for tests and debugging on a host) everything runs as the executor
// itself: there is nothing to separate from.

import { readFileSync } from "node:fs";
// The constants only: main.ts reads the arguments before loading the rest of either role.
import { DISK_LIMIT_FLAG, FILE_WORKER_FLAG, IDENTITY_FLAG, IDENTITY_NAMES } from "./protocol-constants.js";
import type { RunAs } from "./protocol.js";

export { DISK_LIMIT_FLAG, FILE_WORKER_FLAG, IDENTITY_FLAG };

export interface Identity {
  name: RunAs;
  uid: number;
  gid: number;
  /** HOME for the commands it runs: a user's own, never one another identity can write to. */
  home: string;
}

export interface ExecutorArguments {
  /** Empty when the executor runs everything as itself. */
  identities: Map<RunAs, Identity>;
  /** Set when this process is the file worker of an executor, acting as that identity. */
  fileWorkerFor: RunAs | null;
  /** Set when the executor guards the sandbox's disk use in total (disk-guard.ts). */
  diskLimitMb: number | null;
}

/** Parses the executor's argv (after the script); throws with a message naming what is wrong. */
export function parseExecutorArguments(argv: readonly string[]): ExecutorArguments {
  const identities = new Map<RunAs, Identity>();
  let fileWorkerFor: RunAs | null = null;
  let diskLimitMb: number | null = null;
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    const value = argv[index + 1];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    index++;
    if (flag === IDENTITY_FLAG) {
      const identity = parseIdentity(value);
      identities.set(identity.name, identity);
    } else if (flag === FILE_WORKER_FLAG) {
      fileWorkerFor = identityName(value);
    } else if (flag === DISK_LIMIT_FLAG) {
      if (!/^[1-9]\d{0,8}$/.test(value)) throw new Error(`${DISK_LIMIT_FLAG} ${value}: expected a whole number of MiB`);
      diskLimitMb = Number(value);
    } else {
      throw new Error(`unknown argument ${flag}`);
    }
  }
  if (identities.size > 0) {
    const missing = IDENTITY_NAMES.filter((name) => !identities.has(name));
    if (missing.length > 0) throw new Error(`${IDENTITY_FLAG} is missing for ${missing.join(", ")}`);
  }
  if (fileWorkerFor !== null && !identities.has(fileWorkerFor))
    throw new Error(`${FILE_WORKER_FLAG} ${fileWorkerFor} has no ${IDENTITY_FLAG}`);
  if (diskLimitMb !== null && identities.size === 0)
    throw new Error(`${DISK_LIMIT_FLAG} needs identities: the guard measures what they hold`);
  return { identities, fileWorkerFor, diskLimitMb };
}

/** The flags that give a child executor process (the file worker) the same identities. */
export function identityArguments(identities: Map<RunAs, Identity>): string[] {
  return [...identities.values()].flatMap((identity) => [
    IDENTITY_FLAG,
    `${identity.name}=${identity.uid}:${identity.gid}:${identity.home}`,
  ]);
}

function parseIdentity(text: string): Identity {
  const match = /^([a-z]+)=(\d+):(\d+):(\/.*)$/.exec(text);
  if (!match) throw new Error(`${IDENTITY_FLAG} ${text}: expected name=uid:gid:/home`);
  const uid = Number(match[2]);
  const gid = Number(match[3]);
  // Root as a target would undo the whole point; a typo must not silently run sandbox code as root.
  if (uid === 0 || gid === 0) throw new Error(`${IDENTITY_FLAG} ${text}: an identity must not be root`);
  return { name: identityName(match[1]!), uid, gid, home: match[4]! };
}

function identityName(text: string): RunAs {
  const name = IDENTITY_NAMES.find((known) => known === text);
  if (name === undefined) throw new Error(`unknown identity ${JSON.stringify(text)}; expected one of ${IDENTITY_NAMES.join(", ")}`);
  return name;
}

/**
 * Runs `work` (synchronous) with the effective uid and gid of `identity`, then returns to root. The
 * real and saved uids stay 0 all along, so sandbox code can still not signal us meanwhile; the file
 * system uid follows the effective one. Used to look at and signal a command's processes: root
 * without CAP_SYS_PTRACE may not read another user's /proc/<pid>/environ, and without CAP_KILL may not
 * signal it, but the process's own user may do both. Must stay synchronous: glibc switches every thread
 * of the process, so nothing else may run meanwhile.
 */
export function actingAs<T>(identity: Identity | undefined, work: () => T): T {
  if (identity === undefined) return work();
  const ids = credentialCalls();
  // Group first: once the uid is not 0, CAP_SETGID is no longer effective.
  ids.setegid(identity.gid);
  ids.seteuid(identity.uid);
  try {
    return work();
  } finally {
    // Back to uid 0 first: that restores the effective capabilities needed to set the gid back.
    ids.seteuid(0);
    ids.setegid(0);
  }
}

/**
 * Makes this process act as `identity` for good, for the file worker: file system accesses are then
 * checked exactly as for that user (files it creates are that user's), while the real and saved uids
 * stay 0 so that the user's own processes cannot signal or trace it. The effective capabilities are
 * cleared by the kernel as the effective uid leaves 0.
 */
export function becomeFileWorker(identity: Identity): void {
  const ids = credentialCalls();
  ids.setgroups([identity.gid]);
  ids.setegid(identity.gid);
  ids.seteuid(identity.uid);
  if (ids.geteuid() !== identity.uid) throw new Error(`could not act as uid ${identity.uid}`);
}

/** linux/capability.h */
const CAP_SETGID = 6;
const CAP_SETUID = 7;

/** Why this process cannot switch identities, or null when it can: it must be root with CAP_SETUID and CAP_SETGID. */
export function whyIdentitiesCannotBeUsed(): string | null {
  if (process.geteuid?.() !== 0) return "the executor does not run as root";
  let status: string;
  try {
    status = readFileSync("/proc/self/status", "utf8");
  } catch {
    return "/proc/self/status cannot be read, so the executor's capabilities are unknown";
  }
  const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  const has = (bit: number): boolean => effective !== undefined && ((BigInt(`0x${effective}`) >> BigInt(bit)) & 1n) === 1n;
  const missing = [...(has(CAP_SETUID) ? [] : ["CAP_SETUID"]), ...(has(CAP_SETGID) ? [] : ["CAP_SETGID"])];
  return missing.length === 0 ? null : `the executor lacks ${missing.join(" and ")}`;
}

interface CredentialCalls {
  geteuid(): number;
  seteuid(id: number): void;
  setegid(id: number): void;
  setgroups(groups: number[]): void;
}

/** Node offers these on POSIX only; identities are only ever given on Linux. */
function credentialCalls(): CredentialCalls {
  const { geteuid, seteuid, setegid, setgroups } = process;
  if (!geteuid || !seteuid || !setegid || !setgroups) throw new Error("this platform cannot switch user ids");
  return {
    geteuid: geteuid.bind(process),
    seteuid: seteuid.bind(process),
    setegid: setegid.bind(process),
    setgroups: setgroups.bind(process),
  };
}
