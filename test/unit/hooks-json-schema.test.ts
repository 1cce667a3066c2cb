// The JSON Schema of hooks.json: generated from the zod schema the parser uses, committed in
// schemas/hooks.schema.json (this test fails until `npm run schemas` has rewritten a stale copy), and
// saying what the parser says: the documentation's files are valid, and what the schema refuses the
// parser reports as an error. A top-level "$schema" (how editors find the schema) is no group.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { Ajv } from "ajv";
import { projectRoot } from "../../server/common/paths.js";
import { parseHooksFile } from "../../server/hooks/hooks-file.js";
import { hooksJsonSchema } from "../../server/hooks/hooks-schema.js";
import { hooksJsonSchemaText } from "../../server/http/schema-routes.js";
import { SEED_HOOKS_FILES } from "../support/seed-hooks-files.js";

const COMMITTED = path.join(projectRoot, "schemas", "hooks.schema.json");

function validator() {
  // Draft-07 is Ajv's default dialect, as the schema declares; strict mode rejects keywords it does not know.
  return new Ajv({ allErrors: true, strict: true }).compile(hooksJsonSchema());
}

const command = (extra: Record<string, unknown> = {}) => ({ type: "command", command: "true", ...extra });
const file = (handler: unknown, rule: Record<string, unknown> = {}) => ({
  g: { pre_tool_execution: [{ matcher: ".*", hooks: [handler], ...rule }] },
});

/** Files the parser skips something of (an error diagnostic): the JSON Schema must refuse each. */
const REFUSED: Record<string, unknown> = {
  "a group that is not an object": { g: 5 },
  'an "enabled" that is a string': { g: { enabled: "false" } },
  "an event that is not an array": { g: { pre_tool_execution: { matcher: ".*" } } },
  "a rule that is not an object": { g: { post_tool_execution: ["x"] } },
  'a rule without "hooks"': { g: { pre_tool_execution: [{ matcher: ".*" }] } },
  "a matcher that is not a string": file(command(), { matcher: 5 }),
  'a handler without "type"': file({ command: "true" }),
  'a handler of "type": "Command"': file({ type: "Command", command: "true" }),
  "an empty command": file(command({ command: "  " })),
  "a timeout in a string": file(command({ timeout: "10" })),
  "a timeout of 0": file(command({ timeout: 0 })),
  "an http handler without a URL": file({ type: "http" }),
  "an ftp URL": file({ type: "http", url: "ftp://example.com/x" }),
  "a header name with a space": file({ type: "http", url: "https://example.com", headers: { "X Bad": "1" } }),
  "a header value with a line break": file({ type: "http", url: "https://example.com", headers: { "X-Ok": "a\r\nb" } }),
  "a header value that is a number": file({ type: "http", url: "https://example.com", headers: { "X-Ok": 1 } }),
  '"$schema" that is not a string': { $schema: 5 },
};

describe("hooks.json JSON Schema", () => {
  it("is committed exactly as the code generates it (regenerate with `npm run schemas`)", () => {
    const committed = fs.existsSync(COMMITTED) ? fs.readFileSync(COMMITTED, "utf8") : "(missing)";
    assert.ok(committed === hooksJsonSchemaText(), `${COMMITTED} is stale or missing: run \`npm run schemas\` and commit it`);
  });

  it("is draft-07 and describes the fields editors complete", () => {
    const schema = hooksJsonSchema() as { $schema: string; definitions: Record<string, unknown> };
    assert.equal(schema.$schema, "http://json-schema.org/draft-07/schema#");
    assert.deepEqual(Object.keys(schema.definitions).sort(), ["hooks_command_handler", "hooks_http_handler", "hooks_rule"]);
    const text = hooksJsonSchemaText();
    for (const field of [
      "pre_tool_execution",
      "post_tool_execution",
      "enabled",
      "matcher",
      "hooks",
      "command",
      "url",
      "headers",
      "timeout",
    ]) {
      assert.ok(text.includes(`"${field}"`), field);
    }
  });

  for (const [name, text] of Object.entries(SEED_HOOKS_FILES)) {
    it(`accepts the documentation's ${name} example, as the parser does`, () => {
      const validate = validator();
      assert.ok(validate(JSON.parse(text)), JSON.stringify(validate.errors));
      assert.deepEqual(parseHooksFile(text, "hooks.json").diagnostics, []);
    });
  }

  for (const [name, document] of Object.entries(REFUSED)) {
    it(`refuses ${name}, which the parser reports as an error`, () => {
      const validate = validator();
      assert.equal(validate(document), false, "the JSON Schema refuses it");
      const errors = parseHooksFile(JSON.stringify(document), "hooks.json").diagnostics.filter((each) => each.severity === "error");
      assert.ok(errors.length > 0, "the parser reports an error");
    });
  }

  it('lets "$schema" name the schema: valid for editors, and no group (no diagnostic) for the parser', () => {
    const document = { $schema: "http://127.0.0.1:8080/schemas/hooks.json", ...JSON.parse(SEED_HOOKS_FILES["security-gate"]!) };
    assert.ok(validator()(document));
    const parsed = parseHooksFile(JSON.stringify(document), "hooks.json");
    assert.deepEqual(parsed.diagnostics, []);
    assert.deepEqual(
      parsed.groups.map((group) => group.name),
      ["security-gate"],
    );
  });

  it('skips a "$schema" that is not a string with an error, keeping the groups', () => {
    const parsed = parseHooksFile(JSON.stringify({ $schema: { pre_tool_execution: [] }, g: { pre_tool_execution: [] } }), "hooks.json");
    assert.deepEqual(
      parsed.groups.map((group) => group.name),
      ["g"],
    );
    assert.deepEqual(
      parsed.diagnostics.map((each) => [each.severity, each.code, each.location?.group]),
      [["error", "schema_key_not_string", "$schema"]],
    );
    assert.match(parsed.diagnostics[0]!.message, /must be a string, not an object; it is not a group/);
  });
});
