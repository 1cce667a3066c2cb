// What the tests of the documentation's examples (test/integration/doc-examples-*.test.ts) share: the
// official SDK pointed at the emulator, the REST examples' requests sent as written (method, path,
// headers, body), an interaction created and checked completed both ways, event streams read as the
// REST examples' curl -N shows them, and a one-commit git repository that stands in for a GitHub URL
// (EMULATOR_REPO_MAP), so that nothing leaves the machine.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { GoogleGenAI } from "@google/genai";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "./fake-runtime.js";

export type Json = Record<string, any>;

export interface RestAnswer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
  /** The parsed body when it is JSON. */
  json: any;
}

export interface DocClient {
  client: GoogleGenAI;
  /** The REST example's request: the same method, path, headers and body, to the emulator. */
  rest(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<RestAnswer>;
  /** interactions.create through the SDK (the JavaScript example, and the Python example's body), checked to end `status`. */
  create(body: Json, status?: string): Promise<Json>;
  /** POST /v1beta/interactions as the REST example sends it, checked to end `status`. */
  createByRest(body: Json, status?: string): Promise<Json>;
  /** interactions.get until the interaction leaves in_progress (and queued), as the pages' polling loops do. */
  settle(id: string): Promise<Json>;
}

export function docClient(baseUrl: string, apiKey: string): DocClient {
  const client = new GoogleGenAI({ apiKey, httpOptions: { baseUrl } });
  const rest = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<RestAnswer> => {
    const response = await fetch(`${baseUrl}${route}`, {
      method,
      headers: { "x-goog-api-key": apiKey, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body) }),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const type = response.headers.get("content-type") ?? "";
    return {
      status: response.status,
      headers: response.headers,
      bytes,
      text: bytes.toString("utf8"),
      json: type.includes("json") && bytes.length > 0 ? JSON.parse(bytes.toString("utf8")) : undefined,
    };
  };
  const create = async (body: Json, status = "completed"): Promise<Json> => {
    const interaction = (await client.interactions.create(body as never)) as unknown as Json;
    assert.equal(interaction.status, status, JSON.stringify(interaction.errors ?? interaction));
    return interaction;
  };
  const createByRest = async (body: Json, status = "completed"): Promise<Json> => {
    const answer = await rest("POST", "/v1beta/interactions", body);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.status, status, JSON.stringify(answer.json.errors ?? answer.json));
    return answer.json;
  };
  const settle = async (id: string): Promise<Json> => {
    for (let tries = 0; tries < 500; tries++) {
      const interaction = (await client.interactions.get(id)) as unknown as Json;
      if (interaction.status !== "in_progress" && interaction.status !== "queued") return interaction;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.fail(`interaction ${id} did not settle`);
  };
  return { client, rest, create, createByRest, settle };
}

/** The events of a text/event-stream body as `curl -N` shows them: each `event:` name with its `data:` text. */
export function sseEvents(text: string): Array<{ event?: string; data: string }> {
  const events: Array<{ event?: string; data: string }> = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const lines = block.split(/\r?\n/);
    const data = lines.filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart());
    if (data.length === 0) continue;
    const name = lines
      .find((line) => line.startsWith("event:"))
      ?.slice(6)
      .trim();
    events.push({ ...(name === undefined ? {} : { event: name }), data: data.join("\n") });
  }
  return events;
}

/** Every event of an SDK stream (the pages' `for await (const event of stream)`). */
export async function drain(stream: unknown): Promise<Json[]> {
  const events: Json[] = [];
  for await (const event of stream as AsyncIterable<Json>) events.push(event);
  return events;
}

/** A one-commit git repository at `folder` holding `files`, readable by the sandbox's user. */
export function standInRepository(folder: string, files: Record<string, string>): string {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
    fs.writeFileSync(path.join(folder, name), text);
  }
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: folder,
      stdio: "ignore",
      env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
    });
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "stand-in");
  execFileSync("chmod", ["-R", "a+rX", folder]);
  return folder;
}

/**
 * An emulator with in-memory sandboxes whose repository sources at `repositories`' URLs are served by
 * stand-in repositories (one commit of the given files each) in a scratch folder; close() removes both.
 */
export async function startWithStandInRepositories(
  name: string,
  repositories: Record<string, Record<string, string>>,
): Promise<{ emulator: FakeRuntimeEmulator; close(): Promise<void> }> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  fs.chmodSync(work, 0o755);
  const map = Object.entries(repositories).map(
    ([url, files]) => `${url}=${standInRepository(path.join(work, new URL(url).pathname.split("/").pop()!), files)}`,
  );
  const emulator = await startFakeRuntimeEmulator({ EMULATOR_REPO_MAP: map.join(","), EMULATOR_REPO_ROOTS: work }).catch(
    (error: unknown) => {
      fs.rmSync(work, { recursive: true, force: true });
      throw error;
    },
  );
  return {
    emulator,
    close: async () => {
      await emulator.close();
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
}
