// The proxy's own answers: refusals (403) and upstream failures (502), with `x-proxy-error: <reason>`
// so programs and people can tell a policy decision from an upstream's own 403 or 502.

import type http from "node:http";
import type { Duplex } from "node:stream";

export const PROXY_ERROR_HEADER = "x-proxy-error";

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway" };

function bodyFor(status: number, reason: string, detail: string): string {
  const what = status === 403 ? "egress refused" : status === 502 ? "egress failed" : "bad proxy request";
  return `${what}: ${reason}: ${detail}\n`;
}

export function answerWithError(response: http.ServerResponse, status: number, reason: string, detail: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = bodyFor(status, reason, detail);
  response.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    [PROXY_ERROR_HEADER]: reason,
  });
  response.end(body);
}

/** The same answer on a raw socket (a CONNECT, where there is no ServerResponse); closes it after. */
export function answerSocketWithError(socket: Duplex, status: number, reason: string, detail: string): void {
  const body = bodyFor(status, reason, detail);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Error"}\r\n` +
      `content-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `${PROXY_ERROR_HEADER}: ${reason}\r\n` +
      `connection: close\r\n\r\n${body}`,
  );
}
