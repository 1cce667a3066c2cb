// A git server over smart HTTP on loopback (git http-backend as a CGI), recording every request that
// reaches it: the stand-in for a public git host, and the proof that a refused clone never arrives.

import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";

export interface GitHttpServer {
  port: number;
  /** "METHOD url host", in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

const GIT_IDENTITY = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };

export function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, { cwd, stdio: "ignore", env: { ...process.env, ...GIT_IDENTITY } });
}

/** A bare repository `<root>/<name>.git` whose one commit holds `files`. */
export function makeBareRepository(root: string, name: string, files: Record<string, string>): string {
  const source = path.join(root, `${name}-source`);
  fs.mkdirSync(source, { recursive: true });
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(source, file)), { recursive: true });
    fs.writeFileSync(path.join(source, file), content);
  }
  git(source, "init", "-q");
  git(source, "add", ".");
  git(source, "commit", "-q", "-m", "first");
  const bare = path.join(root, `${name}.git`);
  git(root, "clone", "-q", "--bare", source, bare);
  return bare;
}

function gitHttpBackend(): string {
  return path.join(execFileSync("git", ["--exec-path"], { encoding: "utf8" }).trim(), "git-http-backend");
}

/** Serves every repository under `root` (GIT_HTTP_EXPORT_ALL). */
export async function startGitHttpServer(root: string): Promise<GitHttpServer> {
  const backend = gitHttpBackend();
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url} ${request.headers.host ?? ""}`);
    const url = new URL(request.url ?? "/", "http://stand-in");
    const cgi = spawn(backend, [], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        REQUEST_METHOD: request.method ?? "GET",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: request.headers["content-type"] ?? "",
        ...(request.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: request.headers["content-encoding"] } : {}),
        ...(request.headers["git-protocol"] ? { GIT_PROTOCOL: String(request.headers["git-protocol"]) } : {}),
        REMOTE_ADDR: "127.0.0.1",
      },
    });
    request.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    cgi.on("close", () => {
      const output = Buffer.concat(chunks);
      const end = output.indexOf("\r\n\r\n");
      const headerText = output.subarray(0, Math.max(end, 0)).toString("latin1");
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of headerText.split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      response.writeHead(status, headers);
      response.end(end < 0 ? output : output.subarray(end + 4));
    });
  });
  const sockets = new Set<net.Socket>();
  server.on("connection", (socket: net.Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
