// The protocol's version, limits and reserved names, in a file of their own so that the tables built
// from them (protocol-operations.ts, protocol-egress.ts) never import the entry module that re-exports them.

export const PROTOCOL_VERSION = 9;

/**
 * The identities an exec may run as (the exec request's `runAs`): the sandbox user runs tools, the
 * hooks user runs hooks from configurations nothing in the sandbox can change (docs/security.md).
 */
export const IDENTITY_NAMES = ["sandbox", "hooks"] as const;

/**
 * The executor's command line (sandbox-image/executor-go/identities.go): `--identity sandbox=1000:1000:/home/sandbox` for each
 * identity, `--file-worker sandbox` for the file worker it starts, `--disk-limit-mb N` for its disk guard.
 * Here because the Go executor's flags are generated from this file too (protocol-go.ts).
 */
export const IDENTITY_FLAG = "--identity";
export const FILE_WORKER_FLAG = "--file-worker";
/** The sandbox's disk limit in total, for an engine that cannot enforce one itself (disk_guard.go). */
export const DISK_LIMIT_FLAG = "--disk-limit-mb";
/**
 * `--hold-port 127.0.0.1:3128`: the container's keep-alive, the same binary, which keeps the egress port
 * bound as root for the container's whole life so that no other user can bind it (egress_port_holder.go).
 */
export const HOLD_PORT_FLAG = "--hold-port";

/**
 * The executor's channel over a Unix socket (docs/architecture.md#the-executor-and-its-channel): a folder
 * of the emulator's data folder (EMULATOR_DATA_DIR/channels/<environment>/) is bind-mounted here. The
 * keep-alive finds CHANNEL_SECRET_FILE in it, makes the folder above root's alone (0700: no sandbox or
 * hooks user can reach the socket), listens on CHANNEL_SOCKET_FILE, and for each connection that opens
 * with the secret starts an executor on it (channel_server.go). Under /usr, refused to every input that
 * places a file (layout.ts).
 */
export const CHANNEL_FOLDER = "/usr/libexec/interactions-emulator/channel/mount";
export const CHANNEL_SOCKET_FILE = "executor.sock";
export const CHANNEL_SECRET_FILE = "secret";
/**
 * `--channel-port 7070` (with HOLD_PORT_FLAG, the keep-alive only): the channel over TCP, for a sandbox on
 * another machine than the emulator's (docs/scale-out.md), on every address of the container, with the
 * same preamble and frames as the socket's. Authenticated with the secret at CHANNEL_NETWORK_SECRET_PATH
 * (root's alone, mode 0400: a Swarm secret). Before it listens, the keep-alive takes the network from
 * every user but root (a routing rule: network_isolation.go), so sandbox code reaches neither other
 * sandboxes nor the emulator, only the loopback egress port; it serves nothing when that fails.
 */
export const CHANNEL_PORT_FLAG = "--channel-port";
export const CHANNEL_NETWORK_SECRET_PATH = "/run/secrets/iemu-channel";
/**
 * The connection's preamble: a u32 BE length, then JSON {"secret": <hex>, "argv": [<the executor's
 * arguments>]}, at most this long; the frames of the protocol follow.
 */
export const CHANNEL_PREAMBLE_MAX_BYTES = 4096;

/** Set in every process an exec starts, so the whole tree can be found and killed; not for users. */
export const EXEC_MARKER_VARIABLE = "EMULATOR_EXEC_ID";

/** Largest header or body a peer accepts; anything bigger means the stream is corrupt. */
export const MAX_FRAME_PART_BYTES = 64 * 1024 * 1024;

/** Error code for a request the executor could not understand (bad shape, unknown op, id in use). */
export const BAD_REQUEST_CODE = "EBADREQ";

/**
 * Error code for a file request the executor could not carry out at all (its file worker ended, twice
 * for a read): nothing is known about the file, so the server must not take it for missing or unreadable.
 */
export const UNAVAILABLE_CODE = "EUNAVAILABLE";

/**
 * Error code ending an exec or a file operation whose `readBefore` files did not read as the request
 * said (or could not be read): nothing was started or done, and the server goes the long way (reads
 * them, runs its hooks, asks again).
 */
export const CHANGED_CODE = "ECHANGED";

/** Error code of an exportTree whose tar would pass its maxBytes: nothing of it is sent. */
export const TOO_LARGE_CODE = "ETOOLARGE";

/** Largest readFileChunk length and appendFile body: large files move in many frames, never one. */
export const MAX_FILE_CHUNK_BYTES = 8 * 1024 * 1024;

/** Most paths one readFiles request may read. */
export const MAX_READ_FILES = 16;

/** Largest maxBytes of a readFiles request: its contents together stay within one frame body. */
export const MAX_READ_FILES_BYTES = 4 * 1024 * 1024;

/** Most entries one walk request returns; a bigger tree is paged with `after`. */
export const MAX_WALK_ENTRIES = 10_000;

/** Most paths one request may list (usage's `paths`, walk's and usage's `exclude`). */
export const MAX_PATH_LIST = 10_000;

/** Per stream and direction: how many bytes may be in flight, unacknowledged. */
export const EGRESS_WINDOW_BYTES = 256 * 1024;

/** Largest data frame body, so one busy stream cannot hold the channel for long. */
export const EGRESS_MAX_DATA_FRAME_BYTES = 64 * 1024;

/** Concurrent streams per executor; connections beyond it are refused at the executor (and at the server). */
export const EGRESS_MAX_STREAMS = 256;

/**
 * Concurrent streams of the hooks user's connections per executor, counted apart from EGRESS_MAX_STREAMS
 * (which counts everyone else's): sandbox code cannot use up what a read-only hook needs to reach out.
 */
export const EGRESS_MAX_HOOK_STREAMS = 32;

/** How long egressListen keeps retrying a port that is in use. */
export const EGRESS_LISTEN_RETRY_MS = 5_000;
