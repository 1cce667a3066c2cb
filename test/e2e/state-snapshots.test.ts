// Issue 20's Done-when for state snapshots, against real Docker: an environment with files and an
// installed package (a wheel built and installed in the sandbox, offline: the sandbox has no network),
// exported and imported into a fresh emulator on another data folder (startEmulator({ state })), has
// the same files and package, and its interactions are readable. Both emulators remove every
// container, volume and image they made on stop(); the test checks that too.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulator, type EmbeddedEmulator } from "../../server/embed.js";
import { objectsOfInstance } from "../support/docker-fixture.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "state-e2e-key";
const SETTINGS = { EMULATOR_POOL_SIZE: "0" };

// A wheel of a one-module package, built with the standard library's zipfile and installed the way pip
// installs a wheel (unpacked into the user's site-packages, where `pip install --user` puts it).
const PREPARE = [
  "set -e",
  "mkdir -p /workspace/repo/src && echo 'print(\"hello from the repo\")' > /workspace/repo/src/main.py",
  "echo 'the notes' > /workspace/notes.txt",
  "mkdir -p /tmp/wheel/snaptool /tmp/wheel/snaptool-1.2.3.dist-info",
  "echo 'VALUE = 42' > /tmp/wheel/snaptool/__init__.py",
  "printf 'Metadata-Version: 2.1\\nName: snaptool\\nVersion: 1.2.3\\n' > /tmp/wheel/snaptool-1.2.3.dist-info/METADATA",
  "printf 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n' > /tmp/wheel/snaptool-1.2.3.dist-info/WHEEL",
  ": > /tmp/wheel/snaptool-1.2.3.dist-info/RECORD",
  "cd /tmp/wheel && python3 -m zipfile -c /workspace/snaptool-1.2.3-py3-none-any.whl snaptool snaptool-1.2.3.dist-info",
  'site=$(python3 -m site --user-site) && mkdir -p "$site" && python3 -m zipfile -e /workspace/snaptool-1.2.3-py3-none-any.whl "$site"',
  "rm -rf /tmp/wheel",
  // Beside a source outside the image's writable places (/tools, made for the sandbox user by its source).
  "echo 'added later' > /tools/added.txt",
  "python3 -c 'import snaptool; print(\"installed\", snaptool.VALUE)'",
].join("\n");

const CHECK = [
  "cat /workspace/notes.txt /workspace/repo/src/main.py",
  'python3 -c \'import importlib.metadata as m, snaptool; print("package", snaptool.VALUE, m.version("snaptool"))\'',
  "stat -c '%U %a' /workspace/notes.txt",
  "cat /tools/version.txt /tools/added.txt",
].join(" && ");

const script = (code: string) => `\`\`\`tool_calls\n${JSON.stringify([{ name: "code_execution", args: { code } }])}\n\`\`\``;

type Interaction = { id: string; status: string; environment_id: string; steps?: unknown };

let folder: string;
let first: EmbeddedEmulator | null = null;
let second: EmbeddedEmulator | null = null;

before(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "state-e2e-"));
});

after(async () => {
  await first?.stop();
  await second?.stop();
  fs.rmSync(folder, { recursive: true, force: true });
});

describe("state snapshots against Docker", () => {
  it("an environment with files and an installed package comes back whole in a fresh emulator", async () => {
    first = await startEmulator({ apiKey: KEY, settings: SETTINGS });
    const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: first.baseUrl } });
    const prepared = (await ai.interactions.create({
      agent: AGENT,
      input: script(PREPARE),
      tools: [{ type: "code_execution" }],
      environment: { type: "remote", sources: [{ type: "inline", target: "/tools/version.txt", content: "tools 7\n" }] },
    } as never)) as unknown as Interaction;
    assert.equal(prepared.status, "completed");
    assert.match(JSON.stringify(prepared.steps), /installed 42/);

    const file = path.join(folder, "state.tar.gz");
    const response = await fetch(`${first.baseUrl}/emulator/state`, { headers: { "x-goog-api-key": KEY } });
    assert.equal(response.status, 200, await response.clone().text());
    fs.writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    const firstInstance = first.instance;
    await first.stop();
    first = null;
    assert.deepEqual(await objectsOfInstance(firstInstance), { containers: 0, volumes: 0, images: 0 });

    // Another data folder, another instance: nothing of the first emulator's is left to lean on.
    second = await startEmulator({ apiKey: KEY, settings: SETTINGS, state: file });
    const again = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: second.baseUrl } });
    const read = (await again.interactions.get(prepared.id)) as unknown as Interaction;
    assert.equal(read.status, "completed");
    assert.equal(read.environment_id, prepared.environment_id);
    assert.match(JSON.stringify(read.steps), /installed 42/, "the interaction's steps came along");

    const checked = (await again.interactions.create({
      agent: AGENT,
      input: script(CHECK),
      tools: [{ type: "code_execution" }],
      environment: prepared.environment_id,
    } as never)) as unknown as Interaction;
    assert.equal(checked.status, "completed");
    const output = JSON.stringify(checked.steps);
    assert.match(output, /the notes/);
    assert.match(output, /hello from the repo/);
    assert.match(output, /package 42 1\.2\.3/);
    assert.match(output, /sandbox 644/, "owners and modes are kept");
    assert.match(output, /tools 7\\nadded later/, "a source's own folder, and what was written beside it, came back");

    // A second import of the same file is refused: its IDs are taken.
    const refused = await fetch(`${second.baseUrl}/emulator/state`, {
      method: "POST",
      headers: { "x-goog-api-key": KEY },
      body: fs.readFileSync(file),
    });
    assert.equal(refused.status, 409);
    const secondInstance = second.instance;
    await second.stop();
    second = null;
    assert.deepEqual(await objectsOfInstance(secondInstance), { containers: 0, volumes: 0, images: 0 });
  });
});
