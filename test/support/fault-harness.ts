// What the fault suites (test/fault/) share: SDK clients for an emulator process, tool-call scripts,
// plain HTTP calls that show the exact status and error body, and waiting for a condition.

import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { GoogleGenAI } from "@google/genai";
import type { EmulatorProcess } from "./emulator-process.js";
import { errorCodeOf, type GoogleStatus } from "../../server/common/errors.js";

export const AGENT = "antigravity-preview-05-2026";
export const KEY = "fault-suite-key";

export interface Interaction {
  id?: string;
  status?: string;
  environment_id?: string;
  output_text?: string;
  steps?: Array<{ type: string; result?: string; is_error?: boolean }>;
  errors?: Array<{ code: string; message: string }>;
}

export interface GoogleError {
  error: { code: string; status: string; message: string };
}

export const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
export const bash = (code: string) => ({ name: "code_execution", args: { code, language: "bash" } });
export const writeFile = (path: string, content: string) => ({ name: "write_file", args: { path, content } });

export function sdk(emulator: EmulatorProcess): GoogleGenAI {
  return new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
}

/** A request without the SDK's retries: what a single call answers. */
export async function rest(
  emulator: EmulatorProcess,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: response.status, body: parsed };
}

/** Asserts a Google error JSON with this HTTP status and Google status (and that status's documented code), its message matching. */
export function assertGoogleError(
  answer: { status: number; body: Record<string, unknown> },
  httpStatus: number,
  status: string,
  message?: RegExp,
): void {
  assert.equal(answer.status, httpStatus, JSON.stringify(answer.body));
  const error = (answer.body as unknown as GoogleError).error;
  assert.equal(error?.code, errorCodeOf(status as GoogleStatus));
  assert.equal(error?.status, status);
  if (message) assert.match(error.message, message);
}

/** Polls `probe` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ""}`);
}

/** The result text of the interaction's code_execution_result steps, in order. */
export const resultsOf = (interaction: Interaction): string[] =>
  (interaction.steps ?? []).filter((step) => step.type === "code_execution_result").map((step) => step.result ?? "");

/** Runs bash in an existing environment through the SDK (with its retries); returns the interaction. */
export async function runIn(ai: GoogleGenAI, environment: string, code: string): Promise<Interaction> {
  return (await ai.interactions.create({ agent: AGENT, input: script([bash(code)]), environment })) as Interaction;
}

/**
 * Starts `code` (which must print "started" first) as a background interaction in the environment and
 * returns the interaction's id once that line has arrived, so a fault hits a call that is really running.
 */
export async function startLongCall(ai: GoogleGenAI, environmentId: string, code: string): Promise<string> {
  const running = (await ai.interactions.create({
    agent: AGENT,
    input: script([bash(code)]),
    environment: environmentId,
    background: true,
  })) as Interaction;
  await waitFor("the command to start", async () => {
    const now = (await ai.interactions.get(running.id!)) as Interaction;
    return resultsOf(now)[0]?.includes("started") ? true : undefined;
  });
  return running.id!;
}

/** A new environment holding /workspace/keep.txt with `content`: the interaction that wrote it, completed. */
export async function writeKeepFile(ai: GoogleGenAI, content: string): Promise<Interaction> {
  const writer = (await ai.interactions.create({
    agent: AGENT,
    input: script([writeFile("/workspace/keep.txt", content)]),
    environment: { type: "remote" },
  })) as Interaction;
  assert.equal(writer.status, "completed", JSON.stringify(writer.errors));
  return writer;
}
