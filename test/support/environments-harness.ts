// What the environments and files end-to-end suites share: one emulator per test file, started as
// `npm start` starts it (real Docker sandboxes), SDK clients for two API keys, and small helpers.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { after, before } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "./emulator-process.js";
import { rawGet as rawGetAt } from "./raw-get.js";

export const AGENT = "antigravity-preview-05-2026";
export const KEY = "environments-key";
export const OTHER_KEY = "environments-other-key";
export const MiB = 1024 * 1024;
export const MAX_DOWNLOAD = 24 * MiB;

// Live bindings: importers see the values once before() has set them.
export let emulator: EmulatorProcess;
export let ai: GoogleGenAI;
export let other: GoogleGenAI;
/** POSTs to an upload URL made through `ai` (the SDK's chunk requests). */
export let uploadPosts = 0;

export interface Environment {
  id: string;
  status?: string;
  created?: string;
  updated?: string;
  last_accessed?: string;
  file_count?: string;
  size_bytes?: string;
  sources?: Array<Record<string, unknown>>;
  network?: unknown;
}
export interface EnvironmentFile {
  name?: string;
  path?: string;
  type?: string;
  mime_type?: string;
  size_bytes?: string;
  created?: string;
  modified?: string;
}

/** Starts one emulator for the calling test file (before all its tests) and stops it after them. */
export function useEnvironmentsEmulator(): void {
  before(async () => {
    // Repository sources may name folders the tests make under the temporary folder (docs/security.md).
    emulator = await startEmulatorProcess({ EMULATOR_MAX_DOWNLOAD_BYTES: String(MAX_DOWNLOAD), EMULATOR_REPO_ROOTS: tmpdir() });
    const countingFetch: typeof fetch = (input, init) => {
      if (init?.method === "POST" && String(input).includes("upload_id=")) uploadPosts += 1;
      return fetch(input, init);
    };
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url, fetch: countingFetch } });
    other = new GoogleGenAI({ apiKey: OTHER_KEY, httpOptions: { baseUrl: emulator.url } });
  });

  after(async () => {
    await emulator?.destroy();
  });
}

export const statusOf = (error: unknown): number | undefined => (error as { status?: number }).status;

/**
 * The Google error message inside an SDK error: the generated client keeps the parsed body in `error`,
 * the legacy one (download, upload chunks) has the body as its message.
 */
export function messageOf(error: unknown): string {
  const parsed = (error as { error?: { error?: { message?: string } } }).error?.error?.message;
  if (typeof parsed === "string") return parsed;
  const text = (error as Error).message;
  try {
    return (JSON.parse(text) as { error: { message: string } }).error.message;
  } catch {
    return text;
  }
}

/** The SDK error for the status, with a Google error message matching `pattern`. */
export const rejectsWith = (status: number, pattern?: RegExp) => (error: unknown) => {
  assert.equal(statusOf(error), status, String(error));
  if (pattern) assert.match(messageOf(error), pattern);
  return true;
};

export const sha = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex");

export async function createEnvironment(body: Record<string, unknown>, client = ai): Promise<Environment> {
  return (await client.environments.create(body as Parameters<GoogleGenAI["environments"]["create"]>[0])) as Environment;
}

export async function getEnvironment(id: string, client = ai): Promise<Environment> {
  return (await client.environments.get(id)) as Environment;
}

export async function listFiles(
  environment: string,
  path: string,
  options: { recursive?: boolean; page_size?: number; page_token?: string } = {},
  client = ai,
) {
  return (await client.environments.files.list({ environment, path, ...options })) as {
    files?: EnvironmentFile[];
    next_page_token?: string;
  };
}

export async function upload(
  environment: string,
  path: string,
  file: Uint8Array | string,
  options: { overwrite?: boolean; extract?: boolean } = {},
  client = ai,
) {
  const data = typeof file === "string" ? Buffer.from(file) : file;
  return (await client.environments.files.upload({ environment, path, file: data, ...options })) as { files: EnvironmentFile[] };
}

export async function download(environment: string, path: string, client = ai): Promise<Buffer> {
  return Buffer.from(await client.environments.files.download({ environment, path }));
}

export const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

/** Runs bash in the environment through an interaction; returns the command's result text. */
export async function bashIn(environment: string, code: string): Promise<string> {
  const interaction = (await ai.interactions.create({
    agent: AGENT,
    input: script([{ name: "code_execution", args: { code, language: "bash" } }]),
    environment,
  })) as { steps?: Array<{ type: string; result?: string }> };
  const result = interaction.steps?.find((step) => step.type === "code_execution_result");
  assert.ok(result, "no code_execution_result step");
  return result.result ?? "";
}

/** A request exactly as written: fetch would resolve "..", node:http does not. */
export function rawGet(path: string, key = KEY): Promise<{ status: number; body: string }> {
  return rawGetAt(emulator.url, path, { "x-goog-api-key": key });
}

export async function rest(
  method: string,
  path: string,
  init: { body?: string | Uint8Array; headers?: Record<string, string>; key?: string } = {},
) {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { "x-goog-api-key": init.key ?? KEY, ...(init.headers ?? {}) },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await response.text();
  let json: Record<string, any> | null = null;
  try {
    json = JSON.parse(text) as Record<string, any>;
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, text, json };
}
