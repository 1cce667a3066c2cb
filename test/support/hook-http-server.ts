// A small scripted HTTP server for HTTP hooks, written in Python so it runs wherever the hooks' commands
// run (the test host for the fake, inside the container for Docker) and listens on that side's own
// loopback. Each path answers as the routes file says (status, body, delay); every request's method,
// path, headers and body are appended to a log file the test reads back. It exits by itself after its
// lifetime, and at once when the test stops it (the executor kills its process tree).

import { posix } from "node:path";
import type { SandboxChannel } from "../../server/sandbox/runtime.js";

const SERVER_PY = String.raw`
import base64, http.server, json, os, sys, threading, time

routes_file, log_file, lifetime = sys.argv[1], sys.argv[2], float(sys.argv[3])
log_lock = threading.Lock()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.answer()

    def do_GET(self):
        self.answer()

    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        record = {
            "method": self.command,
            "path": self.path,
            "headers": [[name, value] for name, value in self.headers.items()],
            "body_base64": base64.b64encode(body).decode("ascii"),
        }
        with log_lock:
            with open(log_file, "a") as log:
                log.write(json.dumps(record) + "\n")
        try:
            with open(routes_file) as routes:
                route = json.load(routes).get(self.path)
        except (OSError, ValueError):
            route = None
        route = route or {"status": 404, "body": "no route"}
        time.sleep(route.get("delay", 0))
        payload = route.get("body", "").encode("utf-8")
        try:
            self.send_response(route.get("status", 200))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a hook timeout): expected

    def log_message(self, *args):
        pass

class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

server = Server(("127.0.0.1", 0), Handler)
timer = threading.Timer(lifetime, lambda: os._exit(0))
timer.daemon = True
timer.start()
print("READY", server.server_address[1], flush=True)
server.serve_forever()
`;

export interface ScriptedRoute {
  status: number;
  body?: string;
  /** Seconds to wait before answering. */
  delay?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** As received, in order, names as the client wrote them. */
  headers: Array<[string, string]>;
  body: Buffer;
}

export interface HookHttpServer {
  /** An http://127.0.0.1:<port><path> URL of this server. */
  url(path: string): string;
  /** Replaces the routes; read by the server on every request. */
  setRoutes(routes: Record<string, ScriptedRoute>): Promise<void>;
  requests(): Promise<RecordedRequest[]>;
  stop(): Promise<void>;
}

export async function startHookHttpServer(channel: SandboxChannel, folder: string, lifetimeS = 600): Promise<HookHttpServer> {
  const routesFile = posix.join(folder, "routes.json");
  const logFile = posix.join(folder, "requests.jsonl");
  await channel.writeFile(routesFile, Buffer.from("{}"));
  await channel.writeFile(logFile, Buffer.alloc(0));
  const stopper = new AbortController();
  let announced = "";
  let onReady: (port: number) => void = () => undefined;
  const ready = new Promise<number>((resolve) => (onReady = resolve));
  const running = channel.run({
    argv: ["python3", "-c", SERVER_PY, routesFile, logFile, String(lifetimeS)],
    timeoutMs: (lifetimeS + 5) * 1000,
    maxOutputBytes: 64 * 1024,
    signal: stopper.signal,
    onOutput: (stream, chunk) => {
      if (stream !== "stdout") return;
      announced += chunk.toString("utf8");
      const match = /READY (\d+)\n/.exec(announced);
      if (match) onReady(Number(match[1]));
    },
  });
  const port = await Promise.race([
    ready,
    running.then((result) => {
      throw new Error(`the hook HTTP server exited before it listened: ${result.stderr.toString("utf8")}`);
    }),
  ]);
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    setRoutes: (routes) => channel.writeFile(routesFile, Buffer.from(JSON.stringify(routes))),
    requests: async () => {
      const log = await channel.readFile(logFile, 64 * 1024 * 1024);
      return log.content
        .toString("utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => {
          const record = JSON.parse(line) as { method: string; path: string; headers: Array<[string, string]>; body_base64: string };
          return { method: record.method, path: record.path, headers: record.headers, body: Buffer.from(record.body_base64, "base64") };
        });
    },
    stop: async () => {
      stopper.abort();
      await running.catch(() => undefined);
    },
  };
}
