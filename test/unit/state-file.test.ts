// The state file's format (server/snapshots): what the writer writes the reader reads back; another
// version, another format, a missing manifest, an unknown entry, a cut-off or damaged file and one past
// the size bound are each refused with the reason; the sealed secrets open with their passphrase only.

import assert from "node:assert/strict";
import fs from "node:fs";
import { PassThrough, Readable } from "node:stream";
import { describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { tarBuffer } from "../../server/common/tar.js";
import { KeyDerivations, seal, unseal, WrongPassphraseError } from "../../server/snapshots/secret-box.js";
import { checkSavedFiles } from "../../server/snapshots/saved-files-check.js";
import os from "node:os";
import path from "node:path";
import {
  readStateFile,
  removeReadState,
  StateBoundError,
  UnreadableStateError,
  type StateReadLimits,
} from "../../server/snapshots/state-file-reader.js";
import { writeStateFile } from "../../server/snapshots/state-file-writer.js";
import { STATE_FORMAT, STATE_TABLES, STATE_VERSION, type StateManifest, type StateTables } from "../../server/snapshots/state-format.js";

const emptyTables = (): StateTables => Object.fromEntries(STATE_TABLES.map((table) => [table, []])) as unknown as StateTables;
const manifest = (changes: Partial<StateManifest> = {}): StateManifest => ({
  format: STATE_FORMAT,
  version: STATE_VERSION,
  created: "2026-01-01T00:00:00Z",
  secrets: "left_out",
  environments: [],
  ...changes,
});

async function written(content: Parameters<typeof writeStateFile>[0]): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on("data", (chunk: Buffer) => chunks.push(chunk));
  await writeStateFile(content, out);
  return Buffer.concat(chunks);
}

/** A gzip'd tar of the given entries, for files the writer would never write. */
async function handMade(entries: Array<[string, string]>): Promise<Buffer> {
  return gzipSync(await tarBuffer(entries.map(([name, text]) => ({ header: { name }, content: Buffer.from(text) }))));
}

const limits = (maxBytes = 1024 * 1024, changes: Partial<StateReadLimits> = {}): StateReadLimits => ({
  maxBytes,
  maxRecordsBytes: maxBytes,
  maxRecords: 1000,
  maxResourcesPerKind: 100,
  ...changes,
});

async function refusal(file: Buffer, maxBytes = 1024 * 1024, changes: Partial<StateReadLimits> = {}): Promise<string> {
  const error = await readStateFile(Readable.from([file]), limits(maxBytes, changes)).then(
    () => assert.fail("expected a refusal"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof UnreadableStateError, String(error));
  return error.message;
}

describe("state file format", () => {
  it("reads back what it wrote: manifest, records, secrets and an environment's files", async () => {
    const tables = emptyTables();
    tables.interactions.push({ id: "int_1", owner: "o", status: "completed", usage: null, created: "x" });
    const files = await tarBuffer([{ header: { name: "workspace/a.txt" }, content: Buffer.from("hi") }]);
    const file = await written({
      manifest: manifest({ environments: ["env_1"], secrets: "sealed" }),
      tables,
      sealedSecrets: Buffer.from("sealed"),
      environmentFiles: new Map([["env_1", files]]),
    });
    const read = await readStateFile(Readable.from([file]), limits());
    try {
      assert.equal(read.manifest.version, STATE_VERSION);
      assert.deepEqual(read.tables.interactions, tables.interactions);
      assert.equal(read.sealedSecrets?.toString(), "sealed");
      assert.deepEqual(fs.readFileSync(read.environmentFiles.get("env_1")!), files);
    } finally {
      removeReadState(read);
    }
    assert.equal(fs.existsSync(read.folder), false, "its temporary folder is removed");
  });

  it("refuses a newer version, saying to upgrade, and another format", async () => {
    const newer = await handMade([["manifest.json", JSON.stringify({ ...manifest(), version: STATE_VERSION + 1 })]]);
    assert.match(await refusal(newer), /version 2 of interactions-emulator-state; this emulator reads version 1 \(upgrade the emulator\)/);
    const other = await handMade([["manifest.json", JSON.stringify({ ...manifest(), format: "something-else" })]]);
    assert.match(await refusal(other), /manifest.json does not have the expected shape \(format/);
  });

  it("refuses a file whose first entry is not the manifest, an unknown entry, a missing part", async () => {
    assert.match(await refusal(await handMade([["records.json", "{}"]])), /first entry is "records.json", not manifest.json/);
    const unknown = await handMade([
      ["manifest.json", JSON.stringify(manifest())],
      ["../../etc/passwd", "x"],
    ]);
    assert.match(await refusal(unknown), /an entry this format does not have/);
    const noRecords = await handMade([["manifest.json", JSON.stringify(manifest())]]);
    assert.match(await refusal(noRecords), /no records.json/);
    const noFiles = await handMade([
      ["manifest.json", JSON.stringify(manifest({ environments: ["env_9"] }))],
      ["records.json", JSON.stringify({ tables: emptyTables() })],
    ]);
    assert.match(await refusal(noFiles), /saved files of env_9 are missing/);
    const badTable = await handMade([
      ["manifest.json", JSON.stringify(manifest())],
      ["records.json", JSON.stringify({ tables: { ...emptyTables(), secrets_of_others: [] } })],
    ]);
    assert.match(await refusal(badTable), /records.json does not have the expected shape/);
  });

  it("bounds the records before parsing them, and checks every row and the tables around them", async () => {
    const withRecords = (records: string) =>
      handMade([
        ["manifest.json", JSON.stringify(manifest())],
        ["records.json", records],
      ]);
    const tables = (changes: Record<string, string>) =>
      `{"tables":{${STATE_TABLES.map((table) => `"${table}":${changes[table] ?? "[]"}`).join(",")}}}`;
    const rows = (count: number) => `[${Array.from({ length: count }, () => "{}").join(",")}]`;
    const bound = async (file: Buffer, changes: Partial<StateReadLimits>) => {
      const error = await readStateFile(Readable.from([file]), limits(1024 * 1024, changes)).then(
        () => assert.fail("expected a refusal"),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof StateBoundError, String(error));
      return error.message;
    };
    assert.match(
      await bound(await withRecords(tables({ steps: rows(1001) })), {}),
      /more than 1000 records in all \(EMULATOR_STATE_MAX_RECORDS\)/,
    );
    assert.match(
      await bound(await withRecords(tables({ triggers: rows(101) })), {}),
      /more than 100 triggers \(EMULATOR_STATE_MAX_RESOURCES_PER_KIND\)/,
    );
    assert.match(
      await bound(await withRecords(tables({})), { maxRecordsBytes: 100 }),
      /records.json has \d+ bytes, past 100 \(EMULATOR_STATE_MAX_RECORDS_BYTES\)/,
    );
    // Within the bounds: read back as written, strings with brackets and escapes included.
    const row = { id: 'a "quoted" } ] [ { \\', n: 1, none: null, text: "é ✓" };
    const file = await withRecords(tables({ interactions: JSON.stringify([row, row]), steps: rows(5) }));
    const read = await readStateFile(Readable.from([file]), limits());
    try {
      assert.deepEqual(read.tables.interactions, [row, row]);
      assert.equal(read.tables.steps.length, 5);
    } finally {
      removeReadState(read);
    }
    const shapes: Array<[string, RegExp]> = [
      [tables({ steps: "[1]" }), /tables.steps: each row is an object/],
      [tables({ steps: '[{"a":{"b":1}}]' }), /a row's values are strings, numbers or null/],
      [tables({ steps: '[{"a":true}]' }), /a row maps columns to strings, numbers or null/],
      [tables({ steps: "{}" }), /each table is an array of rows/],
      [`{"junk":"${"x".repeat(70_000)}",${tables({}).slice(1)}`, /holds something besides the tables/],
      [`{"tables":{"steps":[],"steps":[]}}`, /steps is given twice/],
      [tables({}).slice(0, -3), /cut short/],
      [`${tables({}).slice(0, -1)},"more":1}`, /expected shape/],
    ];
    for (const [records, reason] of shapes) assert.match(await refusal(await withRecords(records)), reason, records.slice(0, 80));
  });

  it("refuses a corrupt, a truncated and an oversized file", async () => {
    const file = await written({ manifest: manifest(), tables: emptyTables(), sealedSecrets: null, environmentFiles: new Map() });
    assert.match(await refusal(Buffer.from("plain text, not gzip")), /corrupt or truncated/);
    assert.match(await refusal(file.subarray(0, file.length - 12)), /corrupt or truncated/);
    const damaged = Buffer.from(file);
    damaged[Math.floor(damaged.length / 2)]! ^= 0xff;
    assert.match(await refusal(damaged), /corrupt or truncated|not JSON|expected shape/);
    // A gzip bomb stops at the bound on what it expands to.
    const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024));
    assert.match(await refusal(bomb, 1024 * 1024), /passes 1048576 bytes \(EMULATOR_STATE_MAX_BYTES\)/);
  });

  it("seals secrets with a passphrase and opens them with it only", async () => {
    const derivations = new KeyDerivations(2);
    const sealed = await seal(Buffer.from('{"token":"tok-1"}'), "a long passphrase", derivations);
    assert.equal(sealed.includes(Buffer.from("tok-1")), false);
    assert.equal((await unseal(sealed, "a long passphrase", derivations)).toString(), '{"token":"tok-1"}');
    await assert.rejects(unseal(sealed, "another passphrase", derivations), WrongPassphraseError);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    await assert.rejects(unseal(tampered, "a long passphrase", derivations), WrongPassphraseError);
  });

  it("derives keys at most N at once, and refuses past the waiting bound", async () => {
    const derivations = new KeyDerivations(1);
    const salt = Buffer.alloc(16);
    // One runs, 16 wait: the 18th is refused at once, naming the setting; the others all finish.
    const accepted = Array.from({ length: 17 }, () => derivations.derive("a long passphrase", salt));
    await assert.rejects(derivations.derive("a long passphrase", salt), /EMULATOR_STATE_KEY_DERIVATIONS = 1/);
    const keys = await Promise.all(accepted);
    assert.equal(new Set(keys.map((key) => key.toString("hex"))).size, 1);
    // The turns were all given back: the next one runs.
    assert.equal((await derivations.derive("a long passphrase", salt)).length, 32);
  });

  it("lets saved files through only inside the saved folders, never through a link the archive made", async () => {
    const folders = ["/workspace", "/home/sandbox"];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "saved-files-"));
    const check = async (entries: Array<{ header: Record<string, unknown> & { name: string }; content?: Buffer }>) => {
      const file = path.join(dir, "files.tar");
      fs.writeFileSync(file, await tarBuffer(entries));
      return checkSavedFiles(file, "env_1", folders);
    };
    try {
      const bytes = await check([
        { header: { name: "workspace", type: "directory" } },
        { header: { name: "workspace/a.txt" }, content: Buffer.from("four") },
        { header: { name: "home/sandbox/.local/lib/x.py" }, content: Buffer.from("x") },
        { header: { name: "workspace/to-etc", type: "symlink", linkname: "/etc" } },
      ]);
      assert.equal(bytes, 5);
      const refusals: Array<[Array<{ header: Record<string, unknown> & { name: string }; content?: Buffer }>, RegExp]> = [
        [
          [{ header: { name: "opt/emulator/executor/main.js" }, content: Buffer.from("x") }],
          /is under \/opt\/emulator, which the emulator's executor uses/,
        ],
        [[{ header: { name: "srv/x" }, content: Buffer.from("x") }], /outside the folders a sandbox saves/],
        [[{ header: { name: "workspace/../etc/passwd" }, content: Buffer.from("x") }], /climbs out/],
        [
          [
            { header: { name: "workspace/link", type: "symlink", linkname: "/opt/emulator" } },
            { header: { name: "workspace/link/executor/main.js" }, content: Buffer.from("x") },
          ],
          /leads through the symlink \/workspace\/link/,
        ],
        [[{ header: { name: "workspace/shadow", type: "link", linkname: "etc/shadow" } }], /hard link to a file that is under \/etc/],
        [[{ header: { name: "workspace/other", type: "link", linkname: "srv/other" } }], /hard link to a file outside/],
        // Issue 29: on or above a reserved folder, even inside a saved folder a hand-made record claims.
        [[{ header: { name: "opt/", type: "directory" } }], /holds \/opt\/emulator/],
        [
          [{ header: { name: "usr/libexec/interactions-emulator/sandbox-executor" }, content: Buffer.from("x") }],
          /is under \/usr\/libexec\/interactions-emulator/,
        ],
        [[{ header: { name: "workspace/null", type: "character-device", devmajor: 1, devminor: 3 } }], /is a character-device/],
      ];
      for (const [entries, why] of refusals) {
        await assert.rejects(check(entries), (error: unknown) => error instanceof UnreadableStateError && why.test(error.message));
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
