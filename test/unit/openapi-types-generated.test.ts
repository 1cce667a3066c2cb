// server/wire/openapi-types.ts, the service's wire types, is generated from the OpenAPI document
// (tools/openapi-types.ts) rather than written beside it by hand: this fails until `npm run schemas` has
// rewritten a stale copy, so a document replaced by a newer public copy (or a defect patched) cannot ship
// with the old types. The emulator's renderers and request schemas are checked against these types by tsc.

import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, it } from "node:test";
import { patchedDocument } from "../../server/http/contract-document.js";
import { OPENAPI_TYPES_FILE, openApiTypesText } from "../../tools/openapi-types.js";

const committed = (): string => fs.readFileSync(OPENAPI_TYPES_FILE, "utf8");

describe("server/wire/openapi-types.ts", () => {
  it("is committed as generated now (npm run schemas rewrites it)", () => {
    assert.equal(committed(), openApiTypesText(), "server/wire/openapi-types.ts is stale: run `npm run schemas`");
  });

  it("holds each operation's bodies and the schemas they reach, as the document declares them", () => {
    const text = openApiTypesText();
    assert.match(text, /^export type CreateInteractionRequestBody = CreateAgentInteractionParams \| CreateModelInteractionParams;$/m);
    assert.match(text, /^export type GetInteractionByIdResponseBody = Interaction;$/m);
    assert.match(text, /^export type GetInteractionByIdStreamEvent = InteractionSseEvent;$/m);
    assert.match(text, /^export type CreateEnvironmentRequestBody = CreateEnvironmentRequest;$/m);
    // Required as declared, enums as unions, int64 as the string the wire carries.
    const environment = /^export interface Environment \{\n([\s\S]*?)^\}$/m.exec(text)?.[1] ?? "";
    assert.match(environment, /^ {2}id: string;$/m);
    assert.match(environment, /^ {2}status\?: "active" \| "expired";$/m);
    assert.match(environment, /^ {2}size_bytes\?: string;$/m);
    assert.match(text, /^export type Step = CodeExecutionCallStep \| /m);
    // A schema no body reaches is left out (the voices are no operation of the document).
    assert.doesNotMatch(text, /^export (?:interface|type) CreateVoiceRequest\b/m);
  });

  it("changes when the document does, so a stale copy is caught", () => {
    const { document } = patchedDocument();
    const schemas = (document["components"] as { schemas: Record<string, { properties: Record<string, unknown> }> }).schemas;
    schemas["Environment"]!.properties["region"] = { type: "string", description: "Where it runs." };
    const text = openApiTypesText(document);
    assert.match(text, /\/\*\*\n {3}\* Where it runs\.\n {3}\*\/\n {2}region\?: string;/);
    assert.notEqual(text, committed());
  });

  it("refuses a reference to a schema the document does not declare, naming it", () => {
    const { document } = patchedDocument();
    const schemas = (document["components"] as { schemas: Record<string, { properties: Record<string, unknown> }> }).schemas;
    schemas["Environment"]!.properties["owner"] = { $ref: "#/components/schemas/Owner" };
    assert.throws(() => openApiTypesText(document), /refers to #\/components\/schemas\/Owner, which it does not declare/);
  });
});
