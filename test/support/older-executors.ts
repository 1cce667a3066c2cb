// Stand-ins for the executor of a sandbox made by another version of the emulator, put where the image
// has the executor (EXECUTOR_PATH), root's as the image has it: the upgrade check only sees how the
// program at that path answers, so each plays one way an older executor can answer.

import type Docker from "dockerode";
import { tarBuffer } from "../../server/common/tar.js";
import { EXECUTOR_PATH } from "../../server/sandbox/docker/image.js";

/**
 * Speaks the frame format (u32 BE header length, u32 BE body length, JSON header, body) and answers a
 * ping with `version`, anything else with EBADREQ. Python: the default image has it, the executor
 * being a binary, and a shell cannot read binary lengths.
 */
function answersWithVersion(version: number): string {
  return `#!/usr/bin/env python3
import json, os, struct, sys
stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
def read(length):
    data = b""
    while len(data) < length:
        chunk = stdin.read(length - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data
while True:
    header_length, body_length = struct.unpack(">II", read(8))
    request = json.loads(read(header_length))
    read(body_length)
    if request.get("op") == "ping":
        answer = {"type": "result", "id": request["id"], "result": {"version": ${version}, "pid": os.getpid(), "uid": os.getuid()}}
    else:
        answer = {"type": "error", "id": request["id"], "code": "EBADREQ", "message": "unknown op"}
    header = json.dumps(answer).encode()
    stdout.write(struct.pack(">II", len(header), 0) + header)
    stdout.flush()
`;
}

/** What an executor does with a command line it does not know: says so and exits 78 (EX_CONFIG). */
const REFUSES_COMMAND_LINE = `#!/bin/sh
echo "unknown argument: $1" >&2
exit 78
`;

export type OlderExecutor = { answersWithVersion: number } | "refuses the command line";

/** Puts the stand-in at EXECUTOR_PATH, over this version's executor, as root (0755, like the image's). */
export async function installOlderExecutor(container: Docker.Container, older: OlderExecutor): Promise<void> {
  const script = older === "refuses the command line" ? REFUSES_COMMAND_LINE : answersWithVersion(older.answersWithVersion);
  const tar = await tarBuffer([{ header: { name: EXECUTOR_PATH.slice(1), mode: 0o755, uid: 0, gid: 0 }, content: Buffer.from(script) }]);
  await container.putArchive(tar, { path: "/" });
}
