// A GET with the path exactly as written (fetch would resolve "..", node:http does not) and the headers
// as given (fetch would not let a test set Host), on a connection of its own: Node 20's global agent
// keeps sockets alive, and one the server closed meanwhile (while the test process was blocked) would
// be reused and reset (ECONNRESET).

import { request } from "node:http";

export function rawGet(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}
