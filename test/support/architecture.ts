// The layers of the code base, as docs/architecture.md draws them, and the check that imports follow
// them: a folder may import its own layer's folders (as long as folders form no cycle) and any layer
// below, never one above. The proxy is a program of its own: it imports nothing outside proxy/ and is
// used only through proxy/index.ts. The executor is a Go program (sandbox-image/executor-go, not read
// here); the only TypeScript under sandbox-image/ is its protocol, which the server imports and the Go
// side is generated from, and which imports nothing at all (no other file, no package, no built-in).
// server/ holds what the running emulator runs, every file of it reached from its entry points, and no
// two files of it import each other in a circle; the clients (clients/) and the build and test tools
// (tools/) live beside it: they may import the server, the server never imports them, and neither
// reaches into the other's files.

import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

export interface Layer {
  name: string;
  /** Folders relative to the repository root; "server/*" means the files directly in server/. */
  folders: string[];
}

/** Top to bottom. */
export const LAYERS: readonly Layer[] = [
  // tools/parity: the generator of docs/coverage.md (npm run coverage), like write-schemas.ts a tool that may read anything.
  { name: "wiring", folders: ["server/*", "server/cli", "tools/parity", "clients/node"] },
  { name: "http", folders: ["server/http"] },
  {
    name: "services",
    folders: [
      "server/interactions",
      "server/agents",
      "server/files",
      "server/environments",
      "server/credentials",
      "server/egress",
      "server/sources",
      "server/triggers",
      "server/webhooks",
      // State snapshots: reads and writes every other service's records, so it comes first among them.
      "server/snapshots",
      "server/coverage",
    ],
  },
  { name: "request schemas", folders: ["server/api"] },
  // Who decides the agent's next move: the scripted planner and the model-backed one, side by side.
  { name: "planners", folders: ["server/planners", "server/planners/scripted", "server/planners/model"] },
  { name: "agent", folders: ["server/agent"] },
  { name: "hooks and tools", folders: ["server/hooks", "server/tools", "server/mcp"] },
  { name: "sandbox", folders: ["server/sandbox"] },
  { name: "foundation", folders: ["server/common", "server/store", "server/faults", "server/wire"] },
  { name: "egress proxy", folders: ["proxy"] },
  { name: "executor protocol", folders: ["sandbox-image/executor/protocol"] },
];

/**
 * Beside the server: the Node.js client (the package's `interactions-sandbox-emulator/testcontainers`)
 * and the tools run at build or test time (npm run schemas, coverage, image). They may import any file
 * of server/, proxy/ (through its index) and the protocol; the server imports none of them.
 */
const BESIDE_THE_SERVER: readonly string[] = ["clients/node", "tools"];

/**
 * The files of a client that others (the tools) may import: its package entry, and the emulator image
 * it builds, which `npm run image -- --save` ships too (tools/save-images.ts).
 */
const CLIENT_ENTRIES: Readonly<Record<string, readonly string[]>> = {
  "clients/node": ["clients/node/index.ts", "clients/node/emulator-image.ts"],
};

/**
 * What the running emulator starts from: `npm start` (main.ts, serve.ts), the package's import
 * (embed.ts) and its command line (cli/main.ts). Every file under server/ is reached from these.
 */
export const SERVER_ENTRIES: readonly string[] = ["server/main.ts", "server/serve.ts", "server/embed.ts", "server/cli/main.ts"];

/** Programs of their own: what they may import besides themselves. */
const SELF_CONTAINED: Readonly<Record<string, readonly string[]>> = {
  proxy: [],
  "sandbox-image/executor/protocol": [],
};

/** Where a TypeScript file under sandbox-image/ that is not a protocol file lands: a misplaced file, reported. */
const NOT_TYPESCRIPT = "sandbox-image";

/** Layers whose files may import no package and no Node.js built-in either: the generator reads nothing but the tables. */
const NO_PACKAGES: ReadonlySet<string> = new Set(["sandbox-image/executor/protocol"]);

/** The only file of the proxy that code outside it may import. */
const PROXY_ENTRY = "proxy/index.ts";

/** The protocol (protocol.ts, its protocol-*.ts parts, the Go generator protocol-go.ts) and the flow control it specifies. */
const PROTOCOL_FILES = [/^sandbox-image\/executor\/protocol(-[a-z-]+)?\.ts$/, /^sandbox-image\/executor\/flow-window\.ts$/];

export interface SourceFile {
  /** Relative to the repository root, with forward slashes. */
  path: string;
  text: string;
}

export interface ImportEdge {
  from: string;
  to: string;
  /** A worker thread's script the file starts (`new URL("./x.js", import.meta.url)`), not a module it imports. */
  worker?: boolean;
}

/** The folder a file belongs to, in the terms of LAYERS and SELF_CONTAINED; null for files outside the checked tree. */
export function folderOf(file: string): string | null {
  if (PROTOCOL_FILES.some((pattern) => pattern.test(file))) return "sandbox-image/executor/protocol";
  if (file.startsWith("sandbox-image/")) return NOT_TYPESCRIPT;
  if (file.startsWith("proxy/")) return "proxy";
  if (file.startsWith("tools/")) return "tools";
  const client = /^clients\/([^/]+)\//.exec(file);
  if (client) return `clients/${client[1]}`;
  // The planners' folders are a layer of peers one level further down (server/planners/<kind>/).
  const planner = /^server\/planners\/([^/]+)\//.exec(file);
  if (planner) return `server/planners/${planner[1]}`;
  const server = /^server\/([^/]+)\//.exec(file);
  if (server) return `server/${server[1]}`;
  if (/^server\/[^/]+\.ts$/.test(file)) return "server/*";
  return null;
}

function layerIndexOf(folder: string): number {
  return LAYERS.findIndex((layer) => layer.folders.includes(folder));
}

/** A worker thread's script, named beside its module: `new URL("./schema-worker.js", import.meta.url)`. */
const WORKER_SCRIPT = /new URL\(\s*"(\.{1,2}\/[^"]+\.js)",\s*import\.meta\.url\s*\)/g;

/** Every relative import, export-from, dynamic import and worker script of the files, resolved to files of the tree. */
export function importEdges(files: readonly SourceFile[]): ImportEdge[] {
  const known = new Set(files.map((file) => file.path));
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const specifiers = [
      ...ts.preProcessFile(file.text, true, true).importedFiles.map((imported) => ({ specifier: imported.fileName, worker: false })),
      ...[...file.text.matchAll(WORKER_SCRIPT)].map((match) => ({ specifier: match[1]!, worker: true })),
    ];
    for (const { specifier, worker } of specifiers) {
      if (!specifier.startsWith(".")) continue; // packages and node: built-ins
      const joined = path.posix.normalize(path.posix.join(path.posix.dirname(file.path), specifier));
      const candidates = [joined.replace(/\.js$/, ".ts"), `${joined}.ts`, `${joined}/index.ts`, joined];
      const to = candidates.find((candidate) => known.has(candidate)) ?? joined;
      edges.push(worker ? { from: file.path, to, worker } : { from: file.path, to });
    }
  }
  return edges;
}

/** What breaks the layering, one sentence each that says what to change; empty when all is well. */
export function checkLayering(files: readonly SourceFile[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const folder = folderOf(file.path);
    if (folder === NOT_TYPESCRIPT) {
      problems.push(
        `${file.path}: the executor is Go (sandbox-image/executor-go); the only TypeScript under sandbox-image/ is its protocol (sandbox-image/executor/protocol*.ts, flow-window.ts)`,
      );
      continue;
    }
    if (folder !== null && NO_PACKAGES.has(folder)) {
      for (const imported of ts.preProcessFile(file.text, true, true).importedFiles) {
        if (!imported.fileName.startsWith(".")) {
          problems.push(`${file.path} imports ${imported.fileName}: the executor protocol is dependency-free, tables and plain code only`);
        }
      }
    }
    if (folder !== null && !(folder in SELF_CONTAINED) && !BESIDE_THE_SERVER.includes(folder) && layerIndexOf(folder) < 0) {
      problems.push(
        `${file.path}: the folder ${folder} is in no layer; add it to LAYERS or BESIDE_THE_SERVER (test/support/architecture.ts) and docs/architecture.md`,
      );
    }
  }
  const folderEdges = new Map<string, Set<string>>();
  const edges = importEdges(files);
  for (const { from, to } of edges) {
    const source = folderOf(from);
    const target = folderOf(to);
    if (source === null) continue;
    if (target === null) {
      problems.push(`${from} imports ${to}, which is outside the checked tree (server/, clients/, tools/, proxy/, sandbox-image/)`);
      continue;
    }
    if (source === target) continue;
    if (BESIDE_THE_SERVER.includes(target)) {
      const entries = CLIENT_ENTRIES[target];
      if (!BESIDE_THE_SERVER.includes(source)) {
        problems.push(
          `${from} imports ${to}: server/ holds what the running emulator runs and imports nothing of the clients or tools; move what both need into server/`,
        );
      } else if (!entries?.includes(to)) {
        problems.push(
          `${from} imports ${to}: ${source} may not reach into ${target}${entries ? `; import it through ${entries.join(" or ")}` : ""}`,
        );
      }
      continue;
    }
    const allowed = SELF_CONTAINED[source];
    if (allowed && !allowed.includes(target)) {
      problems.push(`${from} imports ${to}: ${source} is a program of its own and may import only ${[source, ...allowed].join(", ")}`);
      continue;
    }
    if (target === "proxy" && to !== PROXY_ENTRY) {
      problems.push(`${from} imports ${to}: outside the proxy, import it through ${PROXY_ENTRY}`);
    }
    if (target === NOT_TYPESCRIPT) {
      problems.push(`${from} imports ${to}: the executor is Go (sandbox-image/executor-go); share only its protocol module`);
      continue;
    }
    if (BESIDE_THE_SERVER.includes(source)) continue; // a client or tool may import any layer of the server
    const sourceLayer = layerIndexOf(source);
    const targetLayer = layerIndexOf(target);
    if (sourceLayer >= 0 && targetLayer >= 0 && targetLayer < sourceLayer) {
      problems.push(
        `${from} imports ${to}: ${source} (layer "${LAYERS[sourceLayer]!.name}") may not import ${target} (layer "${LAYERS[targetLayer]!.name}", above it); move the shared part down or pass it in through an interface`,
      );
    }
    if (!folderEdges.has(source)) folderEdges.set(source, new Set());
    folderEdges.get(source)!.add(target);
  }
  for (const cycle of cyclesOf(folderEdges)) {
    problems.push(`folders import each other in a cycle: ${[...cycle, cycle[0]].join(" → ")}; one of these imports must go`);
  }
  return problems;
}

/** The import graph of server/'s files, a file to those it imports (worker scripts too, when `workers`). */
function serverGraph(edges: readonly ImportEdge[], workers: boolean): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { from, to, worker } of edges) {
    if (!from.startsWith("server/") || (worker && !workers)) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from)!.add(to);
  }
  return graph;
}

/**
 * server/ holds what the running emulator runs: every file of it is reached from SERVER_ENTRIES through
 * imports (of any kind) and worker scripts. A file none reaches is a tool, a client, test support or dead
 * code; each such file is named.
 */
export function checkServerReach(files: readonly SourceFile[]): string[] {
  const graph = serverGraph(importEdges(files), true);
  const reached = new Set<string>();
  const pending = SERVER_ENTRIES.filter((entry) => files.some((file) => file.path === entry));
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (reached.has(next)) continue;
    reached.add(next);
    pending.push(...(graph.get(next) ?? []));
  }
  return files
    .filter((file) => file.path.startsWith("server/") && !reached.has(file.path))
    .map(
      (file) =>
        `${file.path} is not reached from the running emulator's entry points (${SERVER_ENTRIES.join(", ")}): a build or test tool goes in tools/, a client in clients/, test support in test/support/, and unused code goes`,
    );
}

/**
 * No circle of files importing each other anywhere under server/, inside a folder or across folders (the
 * folder check above sees only circles between folders). Type-only imports count: they tie the files'
 * meaning together just the same. A worker thread's script is started, not imported, so it is no edge here.
 */
export function checkFileCycles(files: readonly SourceFile[]): string[] {
  return cyclesOf(serverGraph(importEdges(files), false)).map(
    (cycle) =>
      `files of server/ import each other in a circle: ${[...cycle, cycle[0]].join(" → ")}; move what they share into a file that both import`,
  );
}

/** The strongly connected components of more than one node (Tarjan), and nodes that import themselves, each in a readable order. */
function cyclesOf(edges: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || edges.get(node)?.has(node)) cycles.push(component.reverse());
    }
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

/** The TypeScript sources of the checked tree, read from the repository at `root`. */
export function readSourceTree(root: string): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (relative: string): void => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
        files.push({ path: child, text: fs.readFileSync(path.join(root, child), "utf8") });
      }
    }
  };
  for (const top of ["server", "clients", "tools", "proxy", "sandbox-image"]) walk(top);
  return files;
}
