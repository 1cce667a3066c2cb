// The parity table (docs/coverage.md): committed as generated from the installed SDK, the tests'
// `// covers:` lines and tools/parity/parity-notes.ts (this test fails until `npm run coverage` has
// rewritten a stale copy, and while any SDK method or field has no mark); the rules that give the marks,
// on small made-up surfaces; and the SDK surface it reads: all eight resources, both create variants.

import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, it } from "node:test";
import { COVERAGE_FILE, FIDELITY_FILE, fidelityNow, parityTableNow } from "../../tools/parity/coverage-now.js";
import { type ParityInput, type ParityNote, buildParityTable, parentsOf } from "../../tools/parity/parity-table.js";
import { RESOURCES, sdkMethods, sdkRequestPaths } from "../../tools/parity/sdk-surface.js";
import { coversOf } from "../../tools/parity/test-covers.js";
import { readOpenApi } from "../../tools/parity/openapi-surface.js";
import { referenceSampleLinesOf, referenceSampleRows, referenceSamples } from "../../tools/parity/reference-samples.js";

function input(covers: Record<string, string[]>, notes: Record<string, ParityNote> = {}): ParityInput {
  return {
    methods: { things: ["things.create", "things.get"], voices: ["voices.list"] },
    fields: { CreateThing: ["input", "input(text)", "input(text).text", "input(image)", "tools", "tools.name"] },
    covers: new Map(Object.entries(covers)),
    notes,
  };
}

/** Built once: each build reads genai.d.ts with the TypeScript compiler (seconds on a busy machine). */
let built: ReturnType<typeof parityTableNow> | undefined;
const now = () => {
  built ??= parityTableNow();
  return built;
};

describe("the parity table", () => {
  it("is committed as generated now (npm run coverage rewrites it), with nothing unmarked", () => {
    const { problems, markdown } = now();
    assert.deepEqual(problems, [], "every SDK method and field has a covering test or a note");
    assert.equal(fs.readFileSync(COVERAGE_FILE, "utf8"), markdown, "docs/coverage.md is stale: run `npm run coverage`");
  });

  it("is what docs/fidelity.md's section on requests says, as the request exceptions give it now", () => {
    assert.equal(
      fs.readFileSync(FIDELITY_FILE, "utf8"),
      fidelityNow(),
      "docs/fidelity.md's section on requests is stale: run `npm run coverage`",
    );
  });

  it("lists every method of the eight resources and every field of both create variants", () => {
    const methods = sdkMethods();
    assert.deepEqual(Object.keys(methods), [...RESOURCES]);
    assert.ok(methods.environments?.includes("environments.files.upload"), "the files methods under environments");
    assert.ok(methods.webhooks?.includes("webhooks.rotateSigningSecret"));
    assert.deepEqual(methods.decisions, ["decisions.create"]);
    const paths = sdkRequestPaths();
    for (const field of [
      "agent",
      "tools(function).parameters",
      "environment.network.allowlist.credential",
      "input(function_result).call_id",
    ]) {
      assert.ok(paths.CreateAgentInteraction.includes(field), field);
    }
    assert.ok(paths.CreateModelInteraction.includes("generation_config.temperature"));
    assert.ok(!paths.CreateAgentInteraction.includes("generation_config"), "an agent interaction has no generation_config");
    assert.ok(!paths.CreateEnvironmentRequest.includes("env"), "env is the emulator's extension, not the SDK's field");
    const { markdown } = now();
    for (const field of paths.CreateAgentInteraction) assert.ok(markdown.includes(`| \`${field}\` |`), field);
  });

  it("reads covers lines, several per file, commas or spaces between ids", () => {
    const text =
      "// header\n// covers: things.create, CreateThing.tools\n  // covers:things.get CreateThing.input\nconst x = 1; // covers: not-a-line-start";
    assert.deepEqual(coversOf(text), ["things.create", "CreateThing.tools", "things.get", "CreateThing.input"]);
  });

  it("gives a field the nearest declaration's mark, a note winning over a test at the same level", () => {
    const table = buildParityTable(
      input(
        { "test/e2e/a.test.ts": ["things.create", "things.get", "CreateThing.input", "CreateThing.tools", "CreateThing.input(image)"] },
        {
          voices: { mark: "not emulated", why: "a model feature" },
          "CreateThing.input(image)": { mark: "echoed", why: "kept, unused" },
          "CreateThing.tools.name": { mark: "refused", why: "400 naming it" },
        },
      ),
    );
    assert.deepEqual(table.problems, []);
    const byId = new Map(
      Object.values(table.fields)
        .flat()
        .map((row) => [row.id, row]),
    );
    assert.deepEqual(byId.get("CreateThing.input(text).text"), {
      id: "CreateThing.input(text).text",
      mark: "served",
      from: "CreateThing.input",
      tests: ["test/e2e/a.test.ts"],
    });
    assert.equal(byId.get("CreateThing.input(image)")?.mark, "echoed");
    assert.deepEqual(byId.get("CreateThing.input(image)")?.tests, ["test/e2e/a.test.ts"], "the test at the note's level is its evidence");
    assert.equal(byId.get("CreateThing.tools.name")?.mark, "refused");
    assert.deepEqual(byId.get("CreateThing.tools.name")?.tests, [], "a test further up shows nothing about a refused field below");
    assert.equal(table.methods.voices?.[0]?.mark, "not emulated", "a note on a resource holds for its methods");
  });

  it("lists an unmarked method or field, a covers line or note naming nothing, and a note without a why", () => {
    const table = buildParityTable(
      input(
        { "test/e2e/a.test.ts": ["things.create", "CreateThing.input", "things.destroy"] },
        { "CreateThing.toolz": { mark: "echoed", why: "x" }, voices: { mark: "not emulated", why: " " } },
      ),
    );
    const text = table.problems.join("\n");
    assert.match(text, /^things\.get: no mark and no covering test/m);
    assert.match(text, /^CreateThing\.tools: no mark/m);
    assert.match(text, /^CreateThing\.tools\.name: no mark/m);
    assert.match(text, /test\/e2e\/a\.test\.ts: "\/\/ covers: things\.destroy" names no SDK method or request field/);
    assert.match(text, /the note on "CreateThing\.toolz" names nothing the SDK has/);
    assert.match(text, /the note on "voices" says no why/);
    assert.equal(table.problems.length, 6);
  });

  it("takes a sameAs note's target mark and tests, for the field and those below it", () => {
    const fields = { CreateThing: ["tools", "tools.name"], CreateOther: ["tools", "tools.name"] };
    const table = buildParityTable({
      ...input(
        { "test/e2e/a.test.ts": ["things.create", "things.get", "CreateThing.tools"] },
        { voices: { mark: "not emulated", why: "w" } },
      ),
      fields,
      notes: { voices: { mark: "not emulated", why: "w" }, "CreateOther.tools": { sameAs: "CreateThing.tools" } },
    });
    assert.deepEqual(table.problems, []);
    const row = table.fields.CreateOther?.[1];
    assert.deepEqual(row, {
      id: "CreateOther.tools.name",
      mark: "served",
      from: "CreateOther.tools",
      tests: ["test/e2e/a.test.ts"],
      sameAs: "CreateThing.tools.name",
    });
  });

  it("walks up through tags and fields", () => {
    assert.deepEqual(parentsOf("A.input(text).annotations(url).url"), [
      "A.input(text).annotations(url)",
      "A.input(text).annotations",
      "A.input(text)",
      "A.input",
      "A",
    ]);
  });
});

describe("the API reference's samples in the table", () => {
  const samples = [
    { operationId: "GetThing", lang: "sh", label: "get", source: "curl …" },
    { operationId: "GetThing", lang: "python", label: "get", source: "client.things.get()" },
    { operationId: "GetThing", lang: "java", label: "get", source: "client.things.get()" },
    { operationId: "MakeThing", lang: "sh", label: "make", source: "curl -X POST …" },
  ];

  it("reads the document's x-codeSamples in its order, and a test's reference-sample lines", () => {
    const found = referenceSamples({
      paths: {
        "/things/{id}": { get: { operationId: "GetThing", "x-codeSamples": [{ lang: "sh", label: "get", source: "curl" }] } as never },
        "/things": { post: { operationId: "MakeThing", "x-codeSamples": [{ lang: "python", label: "make", source: "make()" }] } as never },
      },
    });
    assert.deepEqual(
      found.map((sample) => `${sample.operationId} ${sample.lang} ${sample.label} ${sample.source}`),
      ["GetThing sh get curl", "MakeThing python make make()"],
    );
    const text =
      "  // reference-sample: GetThing get (sh, python)\n// reference-sample (fails): MakeThing make (sh)\n// reference-sample: prose, not a line\n";
    assert.deepEqual(referenceSampleLinesOf(text, "test/a.test.ts"), [
      { operationId: "GetThing", label: "get", langs: ["sh", "python"], fails: false, file: "test/a.test.ts" },
      { operationId: "MakeThing", label: "make", langs: ["sh"], fails: true, file: "test/a.test.ts" },
    ]);
  });

  it("gives each sample a test's result or a note's, and a problem for one with neither, and for a line or note naming none", () => {
    const lines = [
      { operationId: "GetThing", label: "get", langs: ["sh", "python"], fails: false, file: "test/b.test.ts" },
      { operationId: "GetThing", label: "gone", langs: ["sh"], fails: false, file: "test/b.test.ts" },
    ];
    const notes = [
      { langs: ["java"], result: "not run" as const, why: "no Java SDK" },
      { operationId: "GetThing", label: "get", langs: ["python"], result: "needs a model" as const, why: "a model's text" },
      { operationId: "Nothing", result: "not run" as const, why: "names nothing" },
    ];
    const { rows, problems } = referenceSampleRows(samples, lines, notes);
    assert.deepEqual(
      rows.map((row) => [row.operationId, row.lang, row.result, row.tests]),
      [
        ["GetThing", "sh", "served", ["test/b.test.ts"]],
        ["GetThing", "python", "needs a model", ["test/b.test.ts"]],
        ["GetThing", "java", "not run", []],
        ["MakeThing", "sh", "no test yet", []],
      ],
    );
    assert.equal(problems.length, 3, problems.join("\n"));
    assert.match(problems.join("\n"), /reference-sample GetThing sh gone is not a sample/);
    assert.match(problems.join("\n"), /note \(Nothing \* \*\) names no sample/);
    assert.match(problems.join("\n"), /MakeThing sh make: a sample of the OpenAPI document with no test and no note/);
  });

  it("holds every sample of the vendored document, none without a test or a note", () => {
    const markdown = now().markdown.split("## The API reference's samples")[1] ?? "";
    const all = referenceSamples(readOpenApi());
    assert.ok(all.length >= 100, `${all.length} samples`);
    for (const sample of all)
      assert.ok(markdown.includes(`| \`${sample.operationId}\` | ${sample.lang} | ${sample.label} |`), sample.label);
    assert.doesNotMatch(markdown, /\| no test yet \|/);
  });
});
