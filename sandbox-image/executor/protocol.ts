// The wire protocol between the emulator server and the executor inside a sandbox container.
//
// One long-lived byte channel per container (the stdin/stdout of one `docker exec`), carrying frames
// (protocol-frames.ts): u32 BE header length | u32 BE body length | header (UTF-8 JSON) | body (raw bytes).
// Headers are small JSON messages with a request id; bodies carry bytes (file content, stdin, output
// chunks) without base64 overhead.
//
// What the headers may hold is declared once, as tables of field descriptors (protocol-fields.ts):
// the operations and their results (protocol-operations.ts), the executor's messages
// (protocol-messages.ts) and egress stream frames (protocol-egress.ts). Both sides derive their types
// and their checks (protocol-check.ts) from those tables.
//
// This is the module the server imports; the executor (Go, sandbox-image/executor-go) gets its side
// generated from these tables (protocol-go.ts). Like every protocol file it stays dependency-free, so
// the generator reads nothing but the tables (test/unit/architecture.test.ts enforces that).

export * from "./protocol-constants.js";
export * from "./protocol-frames.js";
export type { Checked } from "./protocol-check.js";
export * from "./protocol-operations.js";
export * from "./protocol-messages.js";
export * from "./protocol-egress.js";
