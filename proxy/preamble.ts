// The identity preamble: the first line the server writes on each connection it opens to the proxy,
// before the sandbox's bytes. It carries who the connection belongs to and what it may reach, so the
// proxy keeps no state about environments. Only the server knows the shared secret: a sandbox (or any
// other local process) that connects to the proxy's port directly cannot present a policy of its own.

import { createHash, timingSafeEqual } from "node:crypto";
import type net from "node:net";
import { z } from "zod";
import { egressPolicySchema, type EgressPolicy } from "./policy.js";

export const preambleSchema = z.object({
  secret: z.string().min(1),
  environment_id: z.string().min(1).max(256),
  policy: egressPolicySchema,
});

export type EgressPreamble = { secret: string; environment_id: string; policy: EgressPolicy };

/** The preamble as the server writes it: one JSON line. */
export function encodePreamble(preamble: EgressPreamble): string {
  return `${JSON.stringify(preamble)}\n`;
}

/** Constant-time comparison; hashing first makes the lengths equal without leaking them. */
export function secretsMatch(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

export type PreambleCheck =
  | { ok: true; preamble: EgressPreamble }
  | { ok: false; reason: "not-json" | "wrong-secret" | "invalid"; detail: string };

/** Secret first, so a peer without it learns nothing about what a valid policy looks like. */
export function checkPreamble(line: string, expectedSecret: string): PreambleCheck {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: "not-json", detail: "the preamble is not JSON" };
  }
  const secret = typeof value === "object" && value !== null ? (value as { secret?: unknown }).secret : undefined;
  if (typeof secret !== "string" || !secretsMatch(secret, expectedSecret)) {
    return { ok: false, reason: "wrong-secret", detail: "missing or wrong secret" };
  }
  const parsed = preambleSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: "invalid", detail: z.prettifyError(parsed.error) };
  return { ok: true, preamble: parsed.data };
}

export class PreambleError extends Error {
  override name = "PreambleError";
}

/**
 * Reads bytes up to the first newline. Resolves with the line and whatever followed it in the same
 * chunk (the start of the sandbox's HTTP bytes), leaving the socket paused for the next reader.
 */
export function readPreambleLine(
  socket: net.Socket,
  limits: { maxBytes: number; timeoutMs: number },
): Promise<{ line: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (error: Error | null, result?: { line: string; rest: Buffer }) => {
      clearTimeout(timer);
      socket.removeListener("data", onData);
      socket.removeListener("end", onEnd);
      socket.removeListener("close", onEnd);
      socket.removeListener("error", onError);
      socket.pause();
      if (error) reject(error);
      else if (result) resolve(result);
    };
    const onData = (chunk: Buffer) => {
      const newline = chunk.indexOf(0x0a);
      if (newline < 0) {
        chunks.push(chunk);
        length += chunk.length;
        if (length > limits.maxBytes) finish(new PreambleError("preamble too long"));
        return;
      }
      if (length + newline > limits.maxBytes) return finish(new PreambleError("preamble too long"));
      chunks.push(chunk.subarray(0, newline));
      finish(null, { line: Buffer.concat(chunks).toString("utf8"), rest: chunk.subarray(newline + 1) });
    };
    const onEnd = () => finish(new PreambleError("connection closed before the preamble"));
    const onError = (error: Error) => finish(error);
    const timer = setTimeout(() => finish(new PreambleError("no preamble in time")), limits.timeoutMs);
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("close", onEnd);
    socket.once("error", onError);
  });
}
