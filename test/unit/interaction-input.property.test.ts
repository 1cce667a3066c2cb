// Property tests of reading the input whole (issue 10, part 6): for any well-formed input (a string,
// one Content, a Content list, a list of Steps), the steps that record it hold it verbatim, include_input
// rebuilds exactly what was sent from those steps after a trip through the store (JSON), the agent reads
// the text of the turn it answers and names every other part of it; and for anything a client can
// send, reading refuses only with InvalidArgumentError (a 400), never anything that would be a 500.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createInteractionSchema, type CreateInteractionRequest } from "../../server/api/create-interaction.js";
import type { Step } from "../../server/agent/steps.js";
import { inputAsSent, readInput } from "../../server/api/interaction-input.js";
import { InvalidArgumentError } from "../../server/common/errors.js";
import { runs } from "../support/property-runs.js";

type Input = CreateInteractionRequest["input"];

const key = fc.string({ maxLength: 8 }).filter((name) => name !== "__proto__" && name !== "type");
const extraFields = fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2, noNullPrototype: true });
const base64 = fc.uint8Array({ maxLength: 48 }).map((bytes) => Buffer.from(bytes).toString("base64"));
/** A media type with a MIME type the document lists for it (another is refused: interaction-input.test.ts). */
const typeAndMime = fc.constantFrom(
  ["image", "image/png"],
  ["image", "image/jpeg"],
  ["audio", "audio/wav"],
  ["document", "application/pdf"],
  ["video", "video/mp4"],
);

const textPart = fc.record({ type: fc.constant("text"), text: fc.string({ maxLength: 30 }) }, { noNullPrototype: true });
const mediaPart = fc
  .tuple(
    typeAndMime,
    fc.oneof(
      fc.record({ data: base64 }, { noNullPrototype: true }),
      fc.record({ uri: fc.webUrl() }, { noNullPrototype: true }),
      fc.record({ data: base64, uri: fc.webUrl() }, { noNullPrototype: true }),
    ),
    fc.boolean(),
    extraFields,
  )
  .map(([[type, mime], source, withMime, extra]) => ({ ...extra, ...source, ...(withMime ? { mime_type: mime } : {}), type }));
const part = fc.oneof(textPart, mediaPart);

const userInput = fc.record({ type: fc.constant("user_input"), content: fc.array(part, { maxLength: 4 }) }, { noNullPrototype: true });
const otherStep = fc
  .tuple(fc.constantFrom("model_output", "thought", "function_call", "function_result", "code_execution_call"), extraFields)
  .map(([type, extra]) => ({ ...extra, type }));
const steps = fc.array(fc.oneof(userInput, otherStep), { minLength: 1, maxLength: 5 });

const input = fc.oneof(fc.string({ maxLength: 40 }), part, fc.array(part, { maxLength: 5 }), steps);

/** A JSON trip, as through the store; also turns -0 into 0 on both sides of a comparison. */
const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const CONTENT_TYPES = new Set(["text", "image", "audio", "document", "video"]);

/** The Content the agent reads: the input's, or the last user_input step's of a history. */
function readTurn(value: unknown): Array<Record<string, unknown>> {
  if (typeof value === "string") return [{ type: "text", text: value }];
  if (!Array.isArray(value)) return [value as Record<string, unknown>];
  const items = value as Array<Record<string, unknown>>;
  if (items.every((item) => CONTENT_TYPES.has(item.type as string))) return items;
  const users = items.filter((item) => item.type === "user_input");
  return (users.at(-1)?.content ?? []) as Array<Record<string, unknown>>;
}

describe("reading the input whole", () => {
  it("keeps it verbatim, and include_input rebuilds exactly what was sent from the stored steps", () => {
    fc.assert(
      fc.property(input, (sent) => {
        const read = readInput(json(sent) as Input);
        const stored = json<Step[]>([...read.steps, { type: "model_output", content: [{ type: "text", text: "answer" }] }]);
        assert.deepEqual(inputAsSent(read.shape, stored), json(sent));
        if (Array.isArray(sent) && read.shape.form === "steps") assert.deepEqual(json(read.steps), json(sent));
        else assert.equal(read.steps.length, 1);
      }),
      runs(300),
    );
  });

  it("reads the text parts of the turn it answers and names every other part", () => {
    fc.assert(
      fc.property(input, (sent) => {
        const read = readInput(sent as Input);
        const turn = readTurn(sent);
        const texts = turn.filter((item) => item.type === "text").map((item) => item.text);
        assert.equal(read.text, texts.join("\n"));
        assert.deepEqual(
          read.unread.map((item) => item.type),
          turn.filter((item) => item.type !== "text").map((item) => item.type),
        );
      }),
      runs(300),
    );
  });

  it("refuses anything a client can send only with InvalidArgumentError", () => {
    const anyItem = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ type: fc.constantFrom("text", "image", "user_input", "model_output", "odd"), content: fc.jsonValue({ maxDepth: 3 }) }),
      fc.record({ type: fc.constantFrom("image", "audio"), data: fc.jsonValue({ maxDepth: 1 }), uri: fc.jsonValue({ maxDepth: 1 }) }),
    );
    const anyInput = fc.oneof(fc.jsonValue({ maxDepth: 3 }), anyItem, fc.array(anyItem, { maxLength: 4 }));
    fc.assert(
      fc.property(anyInput, (value) => {
        const parsed = createInteractionSchema.safeParse({ agent: "a", input: value });
        if (!parsed.success) return;
        try {
          readInput(parsed.data.input);
        } catch (error) {
          assert.ok(error instanceof InvalidArgumentError, `threw ${String(error)}`);
        }
      }),
      runs(500),
    );
  });
});
