// Every operation the server can ask of the executor, declared once: the fields of its request, what
// the request's frame body carries, and the fields of its `result` (exec has none: it ends with an `exit`
// message). The request and result types of both sides, the executor's request parsing and the
// server's reply checks are all derived from this table; adding an operation means adding an entry
// here, regenerating the Go side (npm run schemas), handling it in the executor's executor.go
// (sandbox-image/executor-go) and offering it in ExecutorClient (and SandboxChannel).

import {
  IDENTITY_NAMES,
  MAX_FILE_CHUNK_BYTES,
  MAX_FRAME_PART_BYTES,
  MAX_PATH_LIST,
  MAX_READ_FILES,
  MAX_READ_FILES_BYTES,
  MAX_WALK_ENTRIES,
} from "./protocol-constants.js";
import * as field from "./protocol-fields.js";
import type { ObjectField, TypeOf } from "./protocol-fields.js";

// ---- Shapes several operations share ----

const fileType = field.oneOf("file", "directory", "symlink", "other");

const fileInfoFields = {
  type: fileType,
  size: field.nonNegativeInteger,
  /** Modification time, milliseconds since the epoch. */
  mtimeMs: field.number,
  /** Creation time where the file system records it, else the last status change (ctime). */
  birthtimeMs: field.number,
};

export const fileEntry = field.object({
  name: field.text,
  type: fileType,
  size: field.nonNegativeInteger,
  mtimeMs: field.number,
});

/** File metadata for stat and walk; times in milliseconds since the epoch. */
export const fileInfo = field.object(fileInfoFields);

/** One entry of a walk: its path relative to the walk's start ("" for the start itself). */
export const treeEntry = field.object({ path: field.text, ...fileInfoFields });

const pathList = field.array(field.path, { maxItems: MAX_PATH_LIST });

/**
 * One file of a readFiles answer. `token` stands for everything the read found (for a file: its real
 * path, mount, size, truncation and content; for a failure: its code and message; and maxBytes), so
 * equal tokens mean an identical read. A file found whose token is the one the request gave in `since`
 * is `unchanged`: its content is not sent again. `bytes` is how much of the body is this file's
 * content: its first maxBytes bytes, or nothing when unchanged or truncated (a truncated file is
 * reported, not sent).
 */
export const readFilesEntry = field.taggedUnion(
  "status",
  {
    found: field.object(
      {
        token: field.text,
        unchanged: field.boolean,
        size: field.nonNegativeInteger,
        truncated: field.boolean,
        realPath: field.text,
        readOnlyMount: field.boolean,
        bytes: field.nonNegativeInteger,
      },
      (entry) => ((entry.unchanged || entry.truncated) && entry.bytes !== 0 ? "bytes must be 0 when unchanged or truncated" : null),
    ),
    /** What readFile would have failed with (ENOENT, EISDIR, EACCES, …). */
    failed: field.object({ token: field.text, code: field.text, message: field.text }),
  },
  { common: {}, label: (status) => `readFiles ${status} entry` },
);

/** A variable name the OS can hold: no "=" (it separates name from value) and no NUL. */
const variableName = field.string({ nonEmpty: true, forbidden: ["=", "\0"] });

/**
 * Who runs an exec: the sandbox user (the default), or the hooks user, which sandbox code can neither
 * signal nor trace. The names map to uids given to the executor at start (see identities.go); an
 * executor started without them (the local one, for tests) runs both as itself.
 */
export const runAs = field.oneOf(...IDENTITY_NAMES);

/**
 * Files a request reads around what it does (the hooks' hooks.json), each as readFiles would
 * (readFilesEntry): an exec around its command, readFile, writeFile, listFiles and deleteFile around
 * their file operation.
 */
const aroundReads = <Since extends field.Field>(since: Since) =>
  field.object(
    {
      paths: field.array(field.path, { minItems: 1, maxItems: MAX_READ_FILES }),
      maxBytes: field.integer(0, MAX_READ_FILES_BYTES),
      since: field.array(since, { maxItems: MAX_READ_FILES }),
    },
    (reads) => (reads.since.length === reads.paths.length ? null : "since must hold one entry per path"),
  );

/** Files read before: the request goes ahead only if each one's token is the one in `since`. */
export const readBeforeFiles = aroundReads(field.text);
/** Files read after, `since` holding the token of the caller's last read of each, or null. */
export const readAfterFiles = aroundReads(field.nullable(field.text));

/**
 * A file operation's reads around it, as an exec's: read these files first and do the operation only if
 * each one's token is the one in `since` (the hooks.json the server decided on are still what it read),
 * otherwise do nothing and end with an error CHANGED_CODE; once the operation has ended (done or failed),
 * read these files and report them in a `reads` message before its result or error.
 */
const fileOperationReads = {
  readBefore: field.optional(readBeforeFiles),
  readAfter: field.optional(readAfterFiles),
};

// ---- The table ----

interface OperationSpec {
  readonly request: ObjectField;
  /** What the request's frame body is, when it carries one. */
  readonly requestBody?: string;
  /** The `result` message's fields besides `op`; none for exec, which ends with an `exit` message. */
  readonly result?: ObjectField;
  /** What the result's frame body is, when it carries one; results without one must have an empty body. */
  readonly resultBody?: string;
}

export const operations = {
  exec: {
    request: field.object(
      {
        /** argv; argv[0] is looked up on PATH. */
        argv: field.array(field.string({ forbidden: ["\0"] }), { minItems: 1 }),
        cwd: field.optional(field.path),
        /** Extra variables merged over the executor's own environment. */
        env: field.optional(field.record(variableName, field.string({ forbidden: ["\0"] }))),
        timeoutMs: field.nonNegativeInteger,
        /** Output kept per stream; the rest is counted and dropped. */
        maxOutputBytes: field.nonNegativeInteger,
        /** Which identity runs the command; absent means the sandbox user. */
        runAs: field.optional(runAs),
        /**
         * Read these files first and start the command only if each one's token is the one in `since`
         * (the hooks.json the server decided on are still what it read): a `started` message then comes
         * first. Otherwise nothing is started and the exec ends with an error CHANGED_CODE.
         */
        readBefore: field.optional(readBeforeFiles),
        /** Once the command has ended, read these files and report them with the exit (its `reads`). */
        readAfter: field.optional(readAfterFiles),
      },
      (request) => (request.argv[0] === "" ? "argv[0] must be a program name, not empty" : null),
    ),
    requestBody: "the command's stdin, closed once written",
  },
  cancel: {
    /** `target` is the id of the exec request whose process tree must be killed. */
    request: field.object({ target: field.nonNegativeInteger }),
    result: field.object({ found: field.boolean }),
  },
  ping: {
    request: field.object({}),
    /** uid is -1 where the platform has none. */
    result: field.object({ version: field.nonNegativeInteger, pid: field.nonNegativeInteger, uid: field.integer(-1) }),
  },
  readFile: {
    // The content travels as one frame body, which the peer refuses past MAX_FRAME_PART_BYTES.
    request: field.object({ path: field.path, maxBytes: field.integer(0, MAX_FRAME_PART_BYTES), ...fileOperationReads }),
    /**
     * realPath is the path of the file actually read, every symlink resolved. readOnlyMount: that file
     * lies on a read-only mount, so nothing in the sandbox can change it (hooks from such a file run as
     * the hooks user).
     */
    result: field.object({
      size: field.nonNegativeInteger,
      truncated: field.boolean,
      realPath: field.text,
      readOnlyMount: field.boolean,
    }),
    resultBody: "the file's first maxBytes bytes",
  },
  /**
   * Reads small files (configuration such as hooks.json) one after another, each exactly as readFile
   * would, and answers each on its own (readFilesEntry): several files cost one round trip, and a file
   * that reads as it did last time costs no transfer. The reads themselves always happen. `since` holds,
   * for each path, the token of the caller's last read of it, or null.
   */
  readFiles: {
    request: field.object(
      {
        paths: field.array(field.path, { minItems: 1, maxItems: MAX_READ_FILES }),
        maxBytes: field.integer(0, MAX_READ_FILES_BYTES),
        since: field.array(field.nullable(field.text), { maxItems: MAX_READ_FILES }),
      },
      (request) => (request.since.length === request.paths.length ? null : "since must hold one entry per path"),
    ),
    result: field.object({ files: field.array(readFilesEntry, { maxItems: MAX_READ_FILES }) }),
    resultBody: "the contents of the entries with bytes, one after another, in order",
  },
  writeFile: {
    /** Parent folders are created. */
    request: field.object({ path: field.path, mode: field.optional(field.integer(0, 0o7777)), ...fileOperationReads }),
    requestBody: "the whole content",
    result: field.object({ size: field.nonNegativeInteger }),
  },
  listFiles: {
    request: field.object({ path: field.path, ...fileOperationReads }),
    result: field.object({ entries: field.array(fileEntry) }),
  },
  deleteFile: {
    request: field.object({ path: field.path, recursive: field.boolean, ...fileOperationReads }),
    result: field.object({}),
  },
  /**
   * What a path names: symlinks followed. When it does not exist (or is a dangling symlink), `info` is
   * null and `realPath` is the nearest existing ancestor's real path joined with the rest, which is where
   * a file created at `path` would land.
   */
  stat: {
    request: field.object({ path: field.path }),
    result: field.object({ info: field.nullable(fileInfo), realPath: field.text }),
  },
  /**
   * The entries of a tree in depth-first pre-order, each folder's children in code-unit order of their
   * names: the start itself first (path ""; symlinks followed for it only), then what lies below it
   * (children only unless `recursive`), never following a symlink. Entries up to and including `after`
   * (a path relative to the start, from a previous page) are skipped. Folders whose absolute path is in
   * `exclude` are listed but not entered; unreadable folders are listed and their contents skipped.
   * At most `limit` entries; `more` tells whether others follow.
   */
  walk: {
    request: field.object({
      path: field.path,
      recursive: field.boolean,
      after: field.optional(field.string({ forbidden: ["\0"] })),
      limit: field.integer(1, MAX_WALK_ENTRIES),
      exclude: field.optional(pathList),
    }),
    result: field.object({ entries: field.array(treeEntry), more: field.boolean }),
  },
  /**
   * Regular files (never through a symlink, each inode once) under the given paths, which may overlap or
   * be missing; folders in `exclude` and unreadable folders are skipped.
   */
  usage: {
    request: field.object({ paths: pathList, exclude: field.optional(pathList) }),
    result: field.object({ files: field.nonNegativeInteger, bytes: field.nonNegativeInteger }),
  },
  /** Up to `length` bytes of a regular file from `offset` (fewer at its end); `size` is the file's whole size now. */
  readFileChunk: {
    request: field.object({ path: field.path, offset: field.nonNegativeInteger, length: field.integer(0, MAX_FILE_CHUNK_BYTES) }),
    result: field.object({ size: field.nonNegativeInteger, bytesRead: field.nonNegativeInteger }),
    resultBody: "the bytes read",
  },
  /**
   * Writes the frame body at `offset` of a regular file whose size must be exactly `offset` (code EOFFSET
   * otherwise, naming the size), never through a symlink. `create` makes a new file (parents too) and
   * refuses an existing one (EEXIST); `offset` is then 0.
   */
  appendFile: {
    request: field.object({ path: field.path, offset: field.nonNegativeInteger, create: field.boolean }, (request) =>
      request.create && request.offset !== 0 ? "create needs offset 0" : null,
    ),
    requestBody: "the bytes to append",
    result: field.object({ size: field.nonNegativeInteger }),
  },
  /**
   * Moves a file to `to`, creating its parents. With `overwrite` an existing file there is replaced
   * atomically (a folder there is EISDIR); without it an existing entry of any kind is EEXIST. A move
   * across file systems copies, then removes `from`.
   */
  moveFile: {
    request: field.object({ from: field.path, to: field.path, overwrite: field.boolean }),
    result: field.object({}),
  },
  /**
   * Root's side of a sandbox's files, for runtimes without an engine archive API (the swarm runtime's
   * fork and snapshots; docs/scale-out.md): a tar of what lies under `paths` (absolute; missing ones
   * skipped), names from "/" without the leading slash, folders, regular files and symlinks with their
   * owners, modes and modification times, never following a symlink. Done by the executor as root, not
   * as the sandbox user. Past `maxBytes` of tar it fails with TOO_LARGE_CODE and nothing is sent.
   */
  exportTree: {
    request: field.object({
      paths: field.array(field.path, { minItems: 1, maxItems: MAX_PATH_LIST }),
      maxBytes: field.integer(0, MAX_FRAME_PART_BYTES),
    }),
    result: field.object({ entries: field.nonNegativeInteger }),
    resultBody: "the tar",
  },
  /**
   * Root's extract of the tar in the body at "/": folders, regular files, symlinks and hard links (to an
   * entry of the same tar or an existing file) with the owners, modes and times the tar gives; an existing
   * file at an entry's place is replaced, an existing folder kept and given the entry's owner and mode.
   * No entry may name a place through a symlink or outside "/" (EINVAL, nothing after it is written). For
   * a sandbox no process of its users has run in yet: the emulator sends it only while creating one.
   */
  extractTree: {
    request: field.object({}),
    requestBody: "the tar",
    result: field.object({ entries: field.nonNegativeInteger }),
  },
  /**
   * Makes the executor accept egress connections on host:port (one listener per executor). Port 0 picks
   * a free port; the result carries the port bound. A port still held (typically by the previous
   * executor of the same container, still exiting), or an address another socket still listens on
   * (which SO_REUSEPORT would let the executor join: the keep-alive's hold, HOLD_PORT_FLAG), is retried
   * for EGRESS_LISTEN_RETRY_MS before the request fails with EADDRINUSE; a second listener on one
   * executor fails with EALREADY.
   */
  egressListen: {
    request: field.object({ host: field.path, port: field.integer(0, 65_535) }),
    result: field.object({ port: field.integer(1, 65_535) }),
  },
} satisfies Record<string, OperationSpec>;

type Operations = typeof operations;

export type RequestOp = keyof Operations;

/** The operations answered by a `result` message (all but exec). */
export type ResultOp = { [Op in RequestOp]: Operations[Op] extends { result: ObjectField } ? Op : never }[RequestOp];

// ---- The unions the checker reads, built from the table ----

/** Request ids: chosen by the server, unique among its requests in flight. */
export const requestId = field.nonNegativeInteger;

type RequestMembers = { [Op in RequestOp]: Operations[Op]["request"] };
type ResultMembers = { [Op in ResultOp]: Operations[Op]["result"] };

function membersFor<Members>(part: "request" | "result"): Members {
  const members: Record<string, ObjectField> = {};
  for (const [op, spec] of Object.entries(operations) as Array<[string, OperationSpec]>) {
    const member = spec[part];
    if (member !== undefined) members[op] = member;
  }
  // Built from the same entries the mapped type is, so the cast only restates what the loop did.
  return members as Members;
}

/** A request header: `op` picks the operation, whose fields follow; `id` is common to all. */
export const requestHeader = field.taggedUnion("op", membersFor<RequestMembers>("request"), { common: { id: requestId } });

/** A `result` message's payload: `op` repeats the operation answered. */
export const resultPayload = field.taggedUnion("op", membersFor<ResultMembers>("result"), {
  common: {},
  label: (op) => `${op} result`,
});

// ---- Types derived from the table ----

export type Request = TypeOf<typeof requestHeader>;
export type RequestOf<Op extends RequestOp> = Extract<Request, { op: Op }>;
export type ExecRequest = RequestOf<"exec">;
export type CancelRequest = RequestOf<"cancel">;
export type PingRequest = RequestOf<"ping">;
export type ReadFileRequest = RequestOf<"readFile">;
export type ReadFilesRequest = RequestOf<"readFiles">;
export type WriteFileRequest = RequestOf<"writeFile">;
export type ListFilesRequest = RequestOf<"listFiles">;
export type DeleteFileRequest = RequestOf<"deleteFile">;
export type StatRequest = RequestOf<"stat">;
export type WalkRequest = RequestOf<"walk">;
export type UsageRequest = RequestOf<"usage">;
export type ReadFileChunkRequest = RequestOf<"readFileChunk">;
export type AppendFileRequest = RequestOf<"appendFile">;
export type MoveFileRequest = RequestOf<"moveFile">;
export type EgressListenRequest = RequestOf<"egressListen">;
export type ExportTreeRequest = RequestOf<"exportTree">;
export type ExtractTreeRequest = RequestOf<"extractTree">;

export type RunAs = TypeOf<typeof runAs>;

export type ResultPayload = TypeOf<typeof resultPayload>;
export type ResultOf<Op extends ResultOp> = Extract<ResultPayload, { op: Op }>;

export type FileEntry = TypeOf<typeof fileEntry>;
export type FileInfo = TypeOf<typeof fileInfo>;
export type TreeEntry = TypeOf<typeof treeEntry>;
export type ReadFilesEntry = TypeOf<typeof readFilesEntry>;

/** Whether a result for `op` may carry a frame body (see resultBody in the table). */
export function resultCarriesBody(op: ResultOp): boolean {
  return (operations[op] as OperationSpec).resultBody !== undefined;
}
