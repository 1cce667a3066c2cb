// A bare Node.js HTTP server, in a process of its own, that answers every request with one of the bodies
// it was given, as they are: the floor of any server that hands a client an answer of that size, to
// set against the emulator's. argv[2]: JSON, each request path to the file whose bytes answer it. Once
// listening it writes `{"port":N}` and a newline on stdout; it ends when its stdin closes.

import fs from "node:fs";
import http from "node:http";

const bodies = new Map(
  Object.entries(JSON.parse(process.argv[2] ?? "{}") as Record<string, string>).map(([path, file]) => [path, fs.readFileSync(file)]),
);

const server = http.createServer((request, response) => {
  // The request's body is read to its end first, as the emulator reads an interaction's.
  request.resume();
  request.on("end", () => {
    const body = bodies.get(request.url ?? "");
    if (body === undefined) {
      response.writeHead(404, { "content-type": "application/json" }).end('{"error":{"code":404}}');
      return;
    }
    response.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) }).end(body);
  });
});

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the answer server has no TCP port");
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
