// All configuration comes from environment variables, validated once at start-up. The table in
// docs/configuration.md is written from these descriptions; keep the two in step.

import { createHash } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { defaultDataDirectory } from "../../proxy/index.js";
import { EmulatorError } from "./errors.js";

// A host name (letters, digits, "-", "_", dots; a trailing dot allowed), "*.domain", or "*".
const ALLOWED_HOST_ENTRY = /^(\*|(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?)$/;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080).describe("TCP port of the HTTP API"),
  HOST: z.string().min(1).default("127.0.0.1").describe("Address the HTTP API binds to"),
  EMULATOR_HTTP_ACCEPT_HANDLES: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(16)
    .describe(
      "How many new connections the HTTP server can take in per turn of its event loop (Node takes one per listening handle per turn; the extra handles are copies of the same socket); 1 turns the copies off",
    ),
  EMULATOR_DATA_DIR: z.string().min(1).optional().describe("Folder for the SQLite store and other state"),
  EMULATOR_API_KEYS: z
    .string()
    .optional()
    .transform((value) =>
      value === undefined || value.trim() === ""
        ? null
        : value
            .split(",")
            .map((key) => key.trim())
            .filter((key) => key.length > 0),
    )
    .describe("Comma-separated API keys accepted; unset means any non-empty key"),
  EMULATOR_ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((value, context) => {
      const names = (value ?? "")
        .split(",")
        .map((name) => name.trim().toLowerCase())
        .filter((name) => name.length > 0);
      for (const name of names) {
        if (!ALLOWED_HOST_ENTRY.test(name)) {
          context.addIssue({ code: "custom", message: `"${name}" is not a host name, "*.domain" or "*"` });
        }
      }
      return names;
    })
    .describe(
      'Host names, comma-separated, the API answers to besides localhost, *.localhost, IP addresses and HOST ("*.domain" for a domain\'s names, "*" for any): the name other containers use for it (docker-compose.yml sets its service name), a machine name. Requests addressed to any other name are a 403 (DNS rebinding, docs/security.md)',
    ),
  EMULATOR_INSTANCE: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_.-]*$/i, "letters, digits, '.', '_' or '-'")
    .optional()
    .describe(
      "Name that tags this emulator's containers; default: derived from EMULATOR_DATA_DIR, so emulators with different data folders never touch each other's sandboxes",
    ),
  EMULATOR_SANDBOX_IMAGE: z.string().optional().describe("Sandbox image to use instead of building ours"),
  EMULATOR_BASE_IMAGE: z.string().default("debian:bookworm-slim").describe("FROM image for the sandbox image build"),
  EMULATOR_OFFLINE_BASE: z
    .enum(["auto", "always", "never"])
    .default("auto")
    .describe(
      "Build the base image from Debian packages: when the base cannot be pulled (auto), always, or never (an offline base already built is still used)",
    ),
  EMULATOR_SANDBOX_MEMORY_MB: positiveInt(1024).describe("Memory limit per sandbox, MiB"),
  EMULATOR_SANDBOX_CPUS: z.coerce.number().positive().default(1).describe("CPU limit per sandbox (cores)"),
  EMULATOR_SANDBOX_PIDS: positiveInt(512).describe("Process-count limit per sandbox"),
  EMULATOR_SANDBOX_DISK_MB: positiveInt(10240).describe(
    "Disk limit per sandbox, MiB: no file grows past it (RLIMIT_FSIZE), nor do the sandbox's files in total (the engine's storage quota where it has one, overlay2 on xfs with pquota; the executor's disk guard elsewhere) (docs/security.md#disk)",
  ),
  // gVisor (docs/security.md#gvisor): its own section, so that other settings' edits merge apart from it.
  EMULATOR_SANDBOX_RUNTIME: z
    .string()
    .optional()
    .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()))
    .pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "a runtime name the Docker engine lists under Runtimes in `docker info`, e.g. runc or runsc")
        .optional(),
    )
    .describe(
      "Docker runtime that sandbox containers run under: runsc runs them under gVisor, a user-space kernel between sandbox code and the host's (docs/security.md#gvisor); unset: the engine's default (runc). The engine must list it in `docker info` (the set-up registers runsc with the engine it starts; docs/setup.md#gvisor); one it lacks stops the emulator at start. The reserved value swarm instead makes each sandbox a Docker Swarm service placed on the nodes labelled dev.interactions-emulator.sandboxes=true, DOCKER_HOST naming a manager (docs/scale-out.md; a first cut: no fork, repository sources, snapshots or warm pool)",
    ),
  // The swarm runtime (docs/scale-out.md): its own block, so that other settings' edits merge apart from it.
  EMULATOR_SWARM_NETWORK: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "a Docker network name")
    .default("iemu-swarm-sandboxes")
    .describe(
      "With EMULATOR_SANDBOX_RUNTIME=swarm: the internal, attachable overlay network sandboxes and the emulator share (created at start when missing); it must have no route out",
    ),
  EMULATOR_SWARM_CONSTRAINTS: z
    .string()
    .optional()
    .transform((value, context) => {
      const constraints = (value ?? "")
        .split(",")
        .map((constraint) => constraint.trim())
        .filter((constraint) => constraint.length > 0);
      for (const constraint of constraints) {
        if (!/^[A-Za-z0-9_.-]+\s*(==|!=)\s*[A-Za-z0-9_.:-]+$/.test(constraint))
          context.addIssue({ code: "custom", message: `"${constraint}" is not a placement constraint like node.labels.zone==a` });
      }
      return constraints;
    })
    .describe(
      "With EMULATOR_SANDBOX_RUNTIME=swarm: placement constraints, comma-separated, each like node.labels.zone==a, added to the sandbox node label's",
    ),
  EMULATOR_SWARM_TASK_START_SECONDS: positiveInt(60).describe(
    "With EMULATOR_SANDBOX_RUNTIME=swarm: how long creating an environment waits for its Swarm task to run before it fails and removes it (no node free, an image missing), and the start's check that every node taking sandboxes can run the image waits for its tasks",
  ),
  EMULATOR_SWARM_NODE_POLL_SECONDS: positiveInt(2).describe(
    "With EMULATOR_SANDBOX_RUNTIME=swarm: how often the manager is asked for its nodes (one `node ls`, never two at once); a node that leaves ready loses its sandboxes: their calls fail and their environments are lost (docs/scale-out.md#losing-a-machine). The manager itself takes 10-15 s to call a stopped node down",
  ),
  EMULATOR_SWARM_NODE_DOWN_SECONDS: positiveInt(25).describe(
    "With EMULATOR_SANDBOX_RUNTIME=swarm: when a sandbox's channel is ended from its side, how long its calls wait for the manager to call the sandbox's node down (they then fail as lost, naming the node) before they fail as a broken channel; a stopping engine ends its containers' connections 10-15 s before the manager sees the node go",
  ),
  EMULATOR_SWARM_CHANNEL_PING_SECONDS: positiveInt(5).describe(
    "With EMULATOR_SANDBOX_RUNTIME=swarm: how often each open channel to a sandbox is pinged, one ping at a time; a ping unanswered for EMULATOR_SWARM_NODE_DOWN_SECONDS less this breaks the channel and fails its pending calls, so a machine that vanished without closing its connections (no FIN) is noticed while the manager still calls it ready (docs/scale-out.md#a-peer-that-vanished)",
  ),
  EMULATOR_CHANNEL: z
    .enum(["auto", "socket", "exec"])
    .default("auto")
    .describe(
      "How the emulator reaches each sandbox's executor: a Unix socket in EMULATOR_DATA_DIR/channels that the container's keep-alive serves, so tool calls' bytes never pass through the Docker engine (socket), the engine's exec stream (exec), or the socket where it works and the exec stream elsewhere: an engine on another machine, gVisor, sandboxes of older versions (auto) (docs/architecture.md#the-executor-and-its-channel)",
    ),
  EMULATOR_ENVIRONMENT_TTL_SECONDS: positiveInt(3600).describe("An environment idle this long is removed and becomes expired"),
  EMULATOR_ENGINE_TIMEOUT_SECONDS: positiveInt(10).describe(
    "How long the Docker engine may take to answer a look-up (or to start an exec; three times this to start a container) before it counts as not answering: the request is then a 503 UNAVAILABLE and the environment is kept",
  ),
  EMULATOR_ENGINE_MAX_CALLS: positiveInt(16).describe(
    "Calls to the Docker engine in flight at once; a call beyond them waits for a place, at most its own deadline, then is a 503 UNAVAILABLE (docs/security.md#availability-faults-of-docker-are-never-the-users-loss)",
  ),
  EMULATOR_ENGINE_MAX_CONTAINER_CHANGES: positiveInt(4).describe(
    "Of those, container (and volume, image) creates, starts and removals at once: the calls that take the engine's network locks, which Docker 20.10 deadlocked on under churn",
  ),
  EMULATOR_SANDBOX_LEASE_SECONDS: positiveInt(300).describe(
    "This emulator's lease on its sandboxes, renewed every third of it while it runs. Any emulator on the same engine and machine removes the containers, volumes and fork images of one whose lease expired and whose data folder no longer holds its store",
  ),
  EMULATOR_TOOL_TIMEOUT_SECONDS: positiveInt(300).describe("Deadline of one code_execution call"),
  EMULATOR_TOOL_OUTPUT_BYTES: positiveInt(1024 * 1024).describe("Output kept per tool call and stream"),
  EMULATOR_MAX_INTERACTION_OUTPUT_BYTES: positiveInt(64 * 1024 * 1024).describe(
    "Result bytes one interaction may store in all, its tool calls together; past it each result is cut with a note saying so, so every stored interaction can be read back (docs/security.md#bounded-work)",
  ),
  EMULATOR_EXECUTOR_GRACE_SECONDS: positiveInt(10).describe(
    "How long past a command's own deadline (or after a cancel) a sandbox's executor may take to report its end, and to answer a ping; past it the call fails with UNAVAILABLE and the next call starts a new executor",
  ),
  EMULATOR_EXECUTOR_FILE_SECONDS: positiveInt(60).describe(
    "How long one file operation in a sandbox (a read, a listing, a recursive delete) may take; past it the call fails with UNAVAILABLE and the next call starts a new executor",
  ),
  EMULATOR_AGENT_MAX_TURNS: positiveInt(50).describe(
    "How often the agent's planner may be asked for its next move in one interaction; a run that reaches it fails",
  ),
  EMULATOR_MAX_TOOL_CALLS: positiveInt(1000).describe(
    "Tool calls one interaction may make; a tool_calls script with more is a 400, a planner that asks for more ends the run failed",
  ),
  EMULATOR_MAX_ENVIRONMENTS_PER_KEY: positiveInt(50).describe(
    "Environments with a sandbox (container) one API key may have at once; one more is a 400 FAILED_PRECONDITION",
  ),
  EMULATOR_MAX_ENVIRONMENTS: positiveInt(100).describe(
    "Environments with a sandbox this emulator runs at once, all keys together; one more is a 400 FAILED_PRECONDITION",
  ),
  EMULATOR_POOL_SIZE: z.coerce
    .number()
    .int()
    .min(0, "0 turns the warm pool off")
    .max(16, "at most 16: each pooled sandbox holds a started container and its executor (about 35 MiB of memory) while it waits")
    .default(1)
    .describe(
      "Warm sandboxes kept started, waiting to become new environments (docs/environments-and-files.md#the-warm-pool); 0 turns the pool off. They never count as environments",
    ),
  EMULATOR_POOL_MAX_SIZE: z.coerce
    .number()
    .int()
    .min(0)
    .max(64, "at most 64: each pooled sandbox holds a started container and its executor (about 35 MiB of memory) while it waits")
    .default(16)
    .describe(
      "Warm sandboxes the pool may grow to while new environments outrun it (it doubles on each miss), back to EMULATOR_POOL_SIZE after 30 s without one; at least EMULATOR_POOL_SIZE (equal: the pool never grows)",
    ),
  EMULATOR_POOL_FILL_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(16)
    .default(2)
    .describe(
      "Warm sandboxes being started at once; each takes one of EMULATOR_ENGINE_MAX_CONTAINER_CHANGES's places while its container is created and started",
    ),
  EMULATOR_MAX_SOURCES_BYTES: positiveInt(32 * 1024 * 1024).describe("Total size of the sources of one request"),
  EMULATOR_EGRESS_HOST_MAP: z
    .string()
    .default("")
    .describe(
      "domain=host:port pairs, comma-separated: where the egress proxy sends those domains (exempt from the private-address guard)",
    ),
  EMULATOR_EGRESS_CA_FILE: z.string().optional().describe("PEM file of extra CA certificates the egress proxy trusts for upstream TLS"),
  EMULATOR_EGRESS_SUBSTITUTION_MAX_BODY_BYTES: positiveInt(1024 * 1024).describe(
    "Largest request body in which the egress proxy replaces an environment_variable credential's placeholder; a larger body goes upstream unchanged (placeholder kept) and its egress log entry says so",
  ),
  EMULATOR_OAUTH2_TOKEN_TIMEOUT_SECONDS: positiveInt(10).describe(
    "How long the egress proxy waits for an OAuth2 credential's token endpoint (connection to last byte); past it the sandbox's request is refused with x-proxy-error oauth2-token-refresh-failed",
  ),
  EMULATOR_OAUTH2_TOKEN_MAX_BYTES: positiveInt(64 * 1024).describe(
    "Largest answer the egress proxy reads from an OAuth2 credential's token endpoint; a larger one fails the refresh",
  ),
  EMULATOR_EGRESS_PROXY: z
    .string()
    .regex(/^[^:\s]+:\d{1,5}$/, "host:port")
    .optional()
    .describe("host:port of an egress proxy run as its own process (proxy/main.ts); unset runs it inside the emulator"),
  EMULATOR_PROXY_SECRET: z
    .string()
    .min(16, "at least 16 characters")
    .optional()
    .describe("Secret shared with that proxy process (required with EMULATOR_EGRESS_PROXY)"),
  EMULATOR_REPO_MAP: z
    .string()
    .optional()
    .describe("url-prefix=local-path pairs, comma-separated: repository sources cloned from local mirrors instead of the network"),
  EMULATOR_REPO_ROOTS: z
    .string()
    .optional()
    .transform((value, context) => {
      const roots = (value ?? "")
        .split(",")
        .map((root) => root.trim())
        .filter((root) => root.length > 0);
      for (const root of roots) {
        if (!path.isAbsolute(root)) context.addIssue({ code: "custom", message: `"${root}" is not an absolute folder` });
      }
      return roots;
    })
    .describe(
      "Absolute folders, comma-separated, that repository sources may name by absolute path or file:// URL; unset means none (never the data folder, only world-readable files)",
    ),
  EMULATOR_REPO_CLONE_TIMEOUT_SECONDS: positiveInt(120).describe("Deadline of one git clone for a repository source"),
  EMULATOR_MAX_SOURCES_FILES: positiveInt(10_000).describe(
    "Files, folders and links the sources of one request may hold together (a repository or folder is measured before it is read)",
  ),
  EMULATOR_GCS_DIR: z.string().optional().describe("Folder with one folder per bucket, for gcs sources when no GCS emulator is set"),
  STORAGE_EMULATOR_HOST: z.string().optional().describe("A GCS emulator (e.g. fake-gcs-server) that gcs sources are fetched from"),
  EMULATOR_MAX_BODY_BYTES: positiveInt(48 * 1024 * 1024).describe(
    "Largest accepted JSON request body (a larger one is a 413 before it is read); the default leaves room for EMULATOR_MAX_SOURCES_BYTES of base64 inline sources. Larger files go through the files API's resumable upload",
  ),
  EMULATOR_EGRESS_LOG_ENTRIES: positiveInt(1000).describe(
    "Egress log entries kept per environment (GET /emulator/environments/{id}/egress); older ones are dropped",
  ),
  // V8's heap growth, set when the emulator's own process starts (serve.ts): its own lines.
  EMULATOR_HEAP_GROWING_PERCENT: z.coerce
    .number()
    .int()
    .min(0)
    .max(300, "at most 300 (the heap would grow to 4 times what is live before a full collection)")
    .default(150)
    .describe(
      "How far V8's heap may grow past what is live before its next full collection, percent, set when the emulator's process starts (npm start, node dist/server/main.js; not an emulator embedded in another process); 0 leaves V8's own rule, under which a heap of about 25 MB marked almost without pause during large transfers (docs/benchmarks.md#read_file-of-1-mib)",
    ),
  // The store's write-ahead log (docs/architecture.md#state): its own lines, so other settings' edits merge apart from them.
  EMULATOR_STORE_CHECKPOINT_MS: z.coerce
    .number()
    .int()
    .positive()
    .max(3_600_000, "at most 3600000 (an hour)")
    .default(100)
    .describe(
      "Between two checkpoints of the store's write-ahead log, run by a worker thread off the event loop (docs/architecture.md#state)",
    ),
  EMULATOR_STORE_WAL_MAX_MB: z.coerce
    .number()
    .int()
    .positive()
    .max(65_536, "at most 65536 (64 GiB): SQLite holds the limit as a 32-bit count of pages")
    .default(64)
    .describe(
      "Largest the store's write-ahead log grows, MiB (plus one transaction): past it the emulator checkpoints the log itself, on its event loop, should the checkpoint thread fall behind (docs/security.md#limits)",
    ),
  EMULATOR_MAX_DOWNLOAD_BYTES: positiveInt(1024 * 1024 * 1024).describe("Largest file the environments files API downloads"),
  EMULATOR_STATE_MAX_BYTES: positiveInt(2 * 1024 * 1024 * 1024).describe(
    "Largest state file (docs/state-snapshots.md) the emulator writes or reads, compressed and not; with EMULATOR_SANDBOX_RUNTIME=swarm also the most a fork copies",
  ),
  EMULATOR_STATE_MAX_RECORDS_BYTES: positiveInt(512 * 1024 * 1024).describe(
    "Largest records.json (the stored rows, expanded) a state file may hold; a larger one is refused before it is read",
  ),
  EMULATOR_STATE_MAX_RECORDS: positiveInt(200_000).describe(
    "Rows (interactions, their steps and events, triggers, executions, …) one state file may hold, all tables together; the import is refused at the first row past it, before it is parsed",
  ),
  EMULATOR_STATE_MAX_RESOURCES_PER_KIND: positiveInt(10_000).describe(
    "Environments, interactions, agents, credentials, triggers or webhooks one state file may hold, each kind on its own; the import is refused at the first one past it",
  ),
  EMULATOR_STATE_KEY_DERIVATIONS: positiveInt(2).describe(
    "Passphrase key derivations (scrypt, about 0.1 s and 32 MiB each, off the event loop) that state exports and imports run at once; up to 16 times as many wait their turn, and one more is a 429 RESOURCE_EXHAUSTED",
  ),
  EMULATOR_MAX_UPLOAD_BYTES: positiveInt(1024 * 1024 * 1024).describe(
    "Largest file (or archive) the environments files API accepts in one upload",
  ),
  EMULATOR_MCP_TIMEOUT_SECONDS: positiveInt(60).describe(
    "How long an MCP server may take to answer one request (connecting, listing its tools, one tool call); past it the call's result is an error",
  ),
  EMULATOR_MCP_RESPONSE_BYTES: positiveInt(16 * 1024 * 1024).describe(
    "Largest answer the emulator reads from an MCP server in one HTTP response; a larger one fails the call",
  ),
  EMULATOR_MCP_HOSTS: z
    .string()
    .optional()
    .transform((value) => {
      const hosts = (value ?? "")
        .split(",")
        .map((host) => host.trim())
        .filter((host) => host.length > 0);
      return hosts.length === 0 ? null : hosts;
    })
    .describe(
      "Hosts (name or address, optionally host:port; IPv6 in brackets) that mcp_server tools may point at, comma-separated; unset means any host, loopback included (docs/security.md#mcp-servers)",
    ),
  EMULATOR_WEBHOOK_HOSTS: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? "")
        .split(",")
        .map((host) => host.trim())
        .filter((host) => host.length > 0),
    )
    .describe(
      'Hosts besides loopback (name or address, optionally host:port; IPv6 in brackets; "*" for any) that webhook deliveries may go to, comma-separated; unset means loopback only (docs/webhooks.md#where-deliveries-may-go)',
    ),
  EMULATOR_WEBHOOK_TIMEOUT_SECONDS: positiveInt(10).describe(
    "How long one webhook delivery attempt may take (connect, answer and its body) before it counts as failed and is retried",
  ),
  EMULATOR_WEBHOOK_RESPONSE_BYTES: positiveInt(64 * 1024).describe(
    "Bytes of a webhook receiver's answer the emulator reads at most (the answer's status decides the attempt; the rest is dropped)",
  ),
  // Webhook bounds (issue 29, docs/webhooks.md#bounds): kept together so that they merge on their own.
  EMULATOR_WEBHOOK_LOOPBACK_PORTS: z
    .string()
    .trim()
    .default("auto")
    .refine(
      (value) =>
        /^(auto|any|none)$/i.test(value) ||
        value.split(",").every((entry) => {
          const [low, high = low] = entry.trim().split("-").map(Number);
          return /^\d{1,5}(-\d{1,5})?$/.test(entry.trim()) && low! >= 1 && high! <= 65535 && low! <= high!;
        }),
      { message: 'must be "auto", "any", "none", or ports (1-65535) and ranges, comma-separated (e.g. 9000,9100-9199)' },
    )
    .describe(
      'Loopback ports of the emulator\'s host that webhook deliveries may go to: ports and ranges ("9000,9100-9199"), "any" or "none"; auto (the default) is any when HOST is a loopback address, none otherwise (docs/webhooks.md#where-deliveries-may-go)',
    ),
  EMULATOR_WEBHOOK_CONCURRENCY: positiveInt(32).describe(
    "Webhook delivery attempts in flight at once, all API keys together; more wait their turn (each attempt holds one connection)",
  ),
  EMULATOR_WEBHOOK_CONCURRENCY_PER_KEY: positiveInt(8).describe(
    "Webhook delivery attempts of one API key in flight at once; more wait their turn, keys served in turn",
  ),
  EMULATOR_WEBHOOK_QUEUE: positiveInt(10_000).describe(
    "Webhook delivery attempts that may wait for their turn, all API keys together; one more is not sent, is listed as a failed attempt saying so, and is retried on the usual schedule",
  ),
  EMULATOR_WEBHOOK_QUEUE_PER_KEY: positiveInt(1000).describe(
    "Webhook delivery attempts of one API key that may wait for their turn; one more is not sent, is listed as a failed attempt saying so, and is retried on the usual schedule",
  ),
  EMULATOR_MAX_WEBHOOKS_PER_KEY: positiveInt(20).describe(
    "Webhooks one API key may have (each takes a delivery of every event it subscribes to); one more is a 400 FAILED_PRECONDITION",
  ),
  EMULATOR_WEBHOOK_METADATA_BYTES: positiveInt(16 * 1024).describe(
    "Bytes of JSON an interaction's webhook_config.user_metadata may have (it goes out with every delivery of the interaction's event); a larger one is a 400",
  ),
  EMULATOR_WEBHOOK_DELIVERIES_KEPT: positiveInt(1000).describe(
    "Finished webhook deliveries (delivered or given up) kept per API key in GET /emulator/webhooks/deliveries; older ones are deleted. Pending ones are always kept",
  ),
  // Bounded work (docs/security.md#bounded-work): what one request may make the server do, charged
  // before the work is done; past a bound the request is a 400 naming the setting (MCP: an is_error result).
  EMULATOR_MAX_SCHEMA_BYTES: positiveInt(256 * 1024).describe(
    "Largest JSON Schema a request may give, as compact JSON: a response_format schema, or one declared function's parameters",
  ),
  EMULATOR_MAX_ANSWER_VALUES: positiveInt(10_000).describe(
    "Values (objects, arrays, scalars) the minimal answer built from a response_format schema may hold; a schema whose smallest value has more (minProperties, minItems, required, nesting) is a 400 at once",
  ),
  EMULATOR_MAX_ANSWER_BYTES: positiveInt(1024 * 1024).describe(
    "Characters of JSON the minimal answer built from a response_format schema may have; a schema whose smallest value is longer is a 400 at once",
  ),
  EMULATOR_SCHEMA_TIMEOUT_SECONDS: z.coerce
    .number()
    .positive()
    .default(10)
    .describe(
      "Deadline of the work on one request's JSON Schemas (compiling them, checking arguments and answers, building the minimal answer), done off the event loop; past it the request is a 400",
    ),
  EMULATOR_MCP_MAX_TOOLS: positiveInt(1000).describe("Tools one MCP server may list; past it the server's calls are error results"),
  EMULATOR_MCP_MAX_LIST_PAGES: positiveInt(100).describe(
    "Pages (nextCursor) of one MCP server's tool list; past it the server's calls are error results",
  ),
  EMULATOR_MCP_MAX_LIST_BYTES: positiveInt(16 * 1024 * 1024).describe(
    "Bytes the MCP servers of one interaction may send together while their tool lists are read; past it the calls are error results",
  ),
  // Fault rules (docs/faults.md#bounds): their own entry, so that they merge on their own.
  EMULATOR_MAX_FAULT_RULES: positiveInt(1000).describe(
    "Fault rules the emulator holds over all API keys together (each key holds at most 100); one more is a 429 RESOURCE_EXHAUSTED naming this setting",
  ),
  EMULATOR_FAULT_RULE_MAX_BYTES: positiveInt(8192).describe("Largest fault rule, as compact JSON; a larger one is a 400 INVALID_ARGUMENT"),
  // Lists (issue 29): its own entry, so that it merges on its own.
  EMULATOR_LIST_PAGE_BYTES: positiveInt(16 * 1024 * 1024).describe(
    "About how many bytes of JSON one page of a list of agents, triggers, credentials or environments holds: a page ends before the item that would pass it (a page holds at least one), with a next_page_token; pages are written piece by piece",
  ),
  // Triggers (issue 19, docs/triggers.md#catching-up): kept in its own entry so that it merges on its own.
  EMULATOR_TRIGGER_CATCH_UP_SECONDS: z.coerce
    .number()
    .positive()
    .default(30)
    .describe(
      "When a move of the test clock makes a trigger's run due while its previous run is still going, how many real seconds at most the new run waits for it to end before it is skipped (an execution timeout made due by a move waits as long before it cancels)",
    ),
  // The test clock's bounds (issue 29, docs/clock.md#bounds): kept in its own entry so that it merges on its own.
  EMULATOR_CLOCK_MAX_OFFSET_DAYS: z.coerce
    .number()
    .int()
    .positive()
    .max(100_000, "at most 100000 days (about 273 years), so every time the emulator stamps stays one a Date can hold")
    .default(36_525)
    .describe(
      "How far ahead of real time one key's test clock may be, in days (default about 100 years); a move past it is a 400 that suggests a reset",
    ),
  EMULATOR_CLOCK_MAX_KEYS: positiveInt(10_000).describe(
    "How many keys may have a test clock ahead of real time at once; a move of one more key's clock is a 400 until one resets",
  ),
  EMULATOR_CLOCK_MAX_RUNS_PER_MOVE: positiveInt(1000).describe(
    "Trigger runs one move of a key's test clock may make, all its triggers together; the runs due past it are recorded as skipped",
  ),
  EMULATOR_TRIGGER_MAX_RUNNING: positiveInt(1000).describe(
    "Trigger executions in progress at once, all keys together; a scheduled run due past it is recorded as skipped (with the runs still due) and the schedule goes on",
  ),
  EMULATOR_TRIGGER_MAX_CATCH_UP_RUNS: positiveInt(100).describe(
    "Missed runs of one trigger a move of the test clock makes up; the runs due past them are recorded as one skipped execution and the schedule goes on after the clock's new time",
  ),
  // Strict request bodies (issue 17): kept in its own entry so that it merges on its own.
  EMULATOR_LOOSE: z
    .enum(["true", "false"], { error: 'must be "true" or "false"' })
    .default("false")
    .transform((value) => value === "true")
    .describe(
      "true: a request field the pinned SDK's types do not declare is accepted with a warning in the log (one line per request) instead of refused with 400 INVALID_ARGUMENT, and a body the service's OpenAPI document refuses is logged and left to the emulator's own checks, for clients newer than the pinned SDK (docs/fidelity.md#unknown-fields)",
    ),
  // The OpenAPI document as a contract (issue 30): kept in its own entry so that it merges on its own.
  EMULATOR_CONTRACT_CHECK: z
    .enum(["true", "false"], { error: 'must be "true" or "false"' })
    .default("false")
    .transform((value) => value === "true")
    .describe(
      "true: every JSON answer, error body and stream event of the API is checked against the service's OpenAPI document (schemas/interactions.openapi.json, its defects patched) before it is sent; a violation is answered as a 500 with code contract_violation (in a stream: a last error event, no [DONE]), logged, and counted in /health. `npm test` turns it on (docs/testing.md#the-openapi-document-as-a-contract)",
    ),
  // The model behind the agent (issue 18, docs/model-agent.md).
  EMULATOR_AGENT_MODEL: z
    .string()
    .trim()
    .default("scripted")
    .refine((value) => value === "scripted" || /^(openai|gemini):\S+$/.test(value), {
      message: 'must be "scripted", "openai:<model>" (e.g. openai:qwen3:8b) or "gemini:<model>" (e.g. gemini:gemini-2.5-flash)',
    })
    .describe(
      "Who plans the agent's moves: scripted (the default: tool_calls scripts and phrasings), openai:<model> (any OpenAI-compatible chat completions server) or gemini:<model>; a request with a tool_calls or response block runs scripted whatever this says",
    ),
  EMULATOR_OPENAI_BASE_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL, e.g. http://127.0.0.1:11434/v1" })
    .default("http://127.0.0.1:11434/v1")
    .describe("The OpenAI-compatible server of openai:<model> (Ollama's default here; llama.cpp, vLLM, LM Studio, LiteLLM: their /v1 URL)"),
  EMULATOR_OPENAI_API_KEY: z
    .string()
    .optional()
    .describe(
      "API key sent to EMULATOR_OPENAI_BASE_URL (local servers need none); never reaches a sandbox, a stored interaction or a cassette",
    ),
  EMULATOR_GEMINI_API_KEY: z
    .string()
    .optional()
    .describe(
      "The emulator's own Gemini API key for gemini:<model> (never a client's key); never reaches a sandbox, a stored interaction or a cassette",
    ),
  EMULATOR_GEMINI_BASE_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .optional()
    .describe("Where gemini:<model> sends its requests, when not Google's API (a proxy, a test server)"),
  EMULATOR_MODEL_TIMEOUT_SECONDS: z.coerce
    .number()
    .positive()
    .default(120)
    .describe("Deadline of one model turn (the whole streamed answer); past it the interaction fails, naming the backend"),
  EMULATOR_MODEL_ANSWER_BYTES: positiveInt(8 * 1024 * 1024).describe(
    "Bytes one model turn may read from the model's server (its streamed answer as sent, or its error answer); past it the connection is cut and the interaction fails with RESOURCE_EXHAUSTED naming this setting",
  ),
  EMULATOR_MODEL_MODE: z
    .enum(["live", "record", "replay"], { error: 'must be "live", "record" or "replay"' })
    .default("live")
    .describe(
      "live: ask the model; record: ask it and save every turn to EMULATOR_MODEL_CASSETTE; replay: answer every turn from the cassette, with no network, failing an interaction whose conversation differs",
    ),
  EMULATOR_MODEL_CASSETTE: z.string().min(1).optional().describe("The cassette file (JSON) of EMULATOR_MODEL_MODE=record|replay"),
});

export type Config = Omit<z.infer<typeof configSchema>, "EMULATOR_INSTANCE" | "EMULATOR_DATA_DIR"> & {
  EMULATOR_INSTANCE: string;
  EMULATOR_DATA_DIR: string;
};

export class ConfigError extends EmulatorError {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n${problems.join("\n")}`);
  }
  const { EMULATOR_MODEL_MODE: mode, EMULATOR_MODEL_CASSETTE: cassette, EMULATOR_AGENT_MODEL: agentModel } = parsed.data;
  if (mode !== "live" && cassette === undefined) {
    throw new ConfigError(
      `invalid configuration:\n  EMULATOR_MODEL_CASSETTE: EMULATOR_MODEL_MODE=${mode} needs a cassette file; set EMULATOR_MODEL_CASSETTE=<file>`,
    );
  }
  if (mode !== "live" && agentModel === "scripted") {
    throw new ConfigError(
      `invalid configuration:\n  EMULATOR_AGENT_MODEL: EMULATOR_MODEL_MODE=${mode} records or replays a model's turns, but EMULATOR_AGENT_MODEL is scripted; set it to the openai:<model> or gemini:<model> the cassette is of`,
    );
  }
  if (agentModel.startsWith("gemini:") && mode !== "replay" && !parsed.data.EMULATOR_GEMINI_API_KEY) {
    throw new ConfigError(
      `invalid configuration:\n  EMULATOR_GEMINI_API_KEY: EMULATOR_AGENT_MODEL=${agentModel} asks Gemini, which needs the emulator's own key; set EMULATOR_GEMINI_API_KEY (never a client's key), or replay a cassette (EMULATOR_MODEL_MODE=replay)`,
    );
  }
  const { EMULATOR_POOL_SIZE: poolSize, EMULATOR_POOL_MAX_SIZE: poolMax } = parsed.data;
  if (poolMax < poolSize) {
    throw new ConfigError(
      `invalid configuration:\n  EMULATOR_POOL_MAX_SIZE: ${poolMax} is below EMULATOR_POOL_SIZE ${poolSize}; set it to at least ${poolSize} (equal keeps the pool at its size)`,
    );
  }
  const dataDir = path.resolve(parsed.data.EMULATOR_DATA_DIR ?? defaultDataDirectory(env));
  return {
    ...parsed.data,
    EMULATOR_DATA_DIR: dataDir,
    EMULATOR_INSTANCE: parsed.data.EMULATOR_INSTANCE ?? createHash("sha256").update(dataDir).digest("hex").slice(0, 10),
  };
}
