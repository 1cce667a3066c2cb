// Turns a decoded frame header into a typed request. The server is trusted, but a bug there must
// produce an EBADREQ answer rather than a crash that takes every running command down with it.

import { MAX_FILE_CHUNK_BYTES, MAX_FRAME_PART_BYTES, MAX_WALK_ENTRIES, type Request } from "./protocol.js";

export type ParsedRequest =
  | { ok: true; request: Request }
  | { ok: false; id: number | null; message: string };

type Fields = Record<string, unknown>;

export function parseRequest(header: unknown): ParsedRequest {
  if (typeof header !== "object" || header === null || Array.isArray(header)) {
    return { ok: false, id: null, message: "frame header is not a JSON object" };
  }
  const fields = header as Fields;
  const id = isRequestId(fields["id"]) ? fields["id"] : null;
  if (id === null) return { ok: false, id: null, message: "frame header has no valid id" };
  try {
    return { ok: true, request: buildRequest(fields, id) };
  } catch (error) {
    return { ok: false, id, message: error instanceof Error ? error.message : String(error) };
  }
}

function buildRequest(fields: Fields, id: number): Request {
  const op = fields["op"];
  switch (op) {
    case "exec": {
      const argv = fields["argv"];
      if (!Array.isArray(argv) || argv.length === 0 || !argv.every(isSpawnableString) || argv[0] === "") {
        throw new Error("exec: argv must be a non-empty array of strings without NUL bytes");
      }
      return {
        op,
        id,
        argv: argv as string[],
        cwd: optionalPath(fields, "cwd"),
        env: optionalEnv(fields["env"]),
        timeoutMs: nonNegativeInteger(fields, "timeoutMs"),
        maxOutputBytes: nonNegativeInteger(fields, "maxOutputBytes"),
      };
    }
    case "cancel": {
      const target = fields["target"];
      if (!isRequestId(target)) throw new Error("cancel: target must be a request id");
      return { op, id, target };
    }
    case "readFile": {
      const maxBytes = nonNegativeInteger(fields, "maxBytes");
      // The content travels as one frame body, which the peer refuses past this size.
      if (maxBytes > MAX_FRAME_PART_BYTES) throw new Error(`readFile: maxBytes exceeds ${MAX_FRAME_PART_BYTES}`);
      return { op, id, path: requiredPath(fields), maxBytes };
    }
    case "writeFile": {
      const mode = fields["mode"];
      if (mode !== undefined && !(Number.isInteger(mode) && (mode as number) >= 0 && (mode as number) <= 0o7777)) {
        throw new Error("writeFile: mode must be an integer between 0 and 0o7777");
      }
      return { op, id, path: requiredPath(fields), mode: mode as number | undefined };
    }
    case "listFiles":
      return { op, id, path: requiredPath(fields) };
    case "deleteFile": {
      const recursive = fields["recursive"];
      if (typeof recursive !== "boolean") throw new Error("deleteFile: recursive must be a boolean");
      return { op, id, path: requiredPath(fields), recursive };
    }
    case "ping":
      return { op, id };
    case "stat":
      return { op, id, path: requiredPath(fields) };
    case "walk": {
      const limit = nonNegativeInteger(fields, "limit");
      if (limit < 1 || limit > MAX_WALK_ENTRIES) throw new Error(`walk: limit must be between 1 and ${MAX_WALK_ENTRIES}`);
      const after = fields["after"];
      if (after !== undefined && !isSpawnableString(after)) throw new Error("walk: after must be a string without NUL bytes");
      return {
        op,
        id,
        path: requiredPath(fields),
        recursive: requiredBoolean(fields, "recursive"),
        after: after as string | undefined,
        limit,
        exclude: optionalPathList(fields, "exclude"),
      };
    }
    case "usage": {
      const paths = optionalPathList(fields, "paths");
      if (paths === undefined) throw new Error("usage: paths must be an array of paths");
      return { op, id, paths, exclude: optionalPathList(fields, "exclude") };
    }
    case "readFileChunk": {
      const length = nonNegativeInteger(fields, "length");
      if (length > MAX_FILE_CHUNK_BYTES) throw new Error(`readFileChunk: length exceeds ${MAX_FILE_CHUNK_BYTES}`);
      return { op, id, path: requiredPath(fields), offset: nonNegativeInteger(fields, "offset"), length };
    }
    case "appendFile": {
      const offset = nonNegativeInteger(fields, "offset");
      const create = requiredBoolean(fields, "create");
      if (create && offset !== 0) throw new Error("appendFile: create needs offset 0");
      return { op, id, path: requiredPath(fields), offset, create };
    }
    case "moveFile":
      return {
        op,
        id,
        from: requiredPath(fields, "from"),
        to: requiredPath(fields, "to"),
        overwrite: requiredBoolean(fields, "overwrite"),
      };
    case "egressListen": {
      const host = fields["host"];
      if (!isSpawnableString(host) || host === "") throw new Error("egressListen: host must be a non-empty string");
      const port = fields["port"];
      if (!Number.isInteger(port) || (port as number) < 0 || (port as number) > 65_535) {
        throw new Error("egressListen: port must be an integer between 0 and 65535");
      }
      return { op, id, host, port: port as number };
    }
    default:
      throw new Error(`unknown op ${JSON.stringify(op)}`);
  }
}

function isRequestId(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isSpawnableString(value: unknown): value is string {
  return typeof value === "string" && !value.includes("\0");
}

function requiredPath(fields: Fields, name = "path"): string {
  const path = fields[name];
  if (!isSpawnableString(path) || path === "") throw new Error(`${name} must be a non-empty string without NUL bytes`);
  return path;
}

function requiredBoolean(fields: Fields, name: string): boolean {
  const value = fields[name];
  if (typeof value !== "boolean") throw new Error(`${name} must be a boolean`);
  return value;
}

const MAX_PATH_LIST = 10_000;

function optionalPathList(fields: Fields, name: string): string[] | undefined {
  const value = fields[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > MAX_PATH_LIST || !value.every((item) => isSpawnableString(item) && item !== "")) {
    throw new Error(`${name} must be an array of at most ${MAX_PATH_LIST} non-empty strings without NUL bytes`);
  }
  return value as string[];
}

function optionalPath(fields: Fields, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined) return undefined;
  if (!isSpawnableString(value) || value === "") throw new Error(`${name} must be a non-empty string without NUL bytes`);
  return value;
}

function optionalEnv(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error("exec: env must be an object of strings");
  }
  const env: Record<string, string> = {};
  for (const [name, variable] of Object.entries(value)) {
    if (name === "" || name.includes("=") || name.includes("\0") || !isSpawnableString(variable)) {
      throw new Error(`exec: invalid environment variable ${JSON.stringify(name)}`);
    }
    env[name] = variable;
  }
  return env;
}

function nonNegativeInteger(fields: Fields, name: string): number {
  const value = fields[name];
  if (!Number.isSafeInteger(value) || (value as number) < 0) throw new Error(`${name} must be a non-negative integer`);
  return value as number;
}
