// Whole inputs (issue 10, part 6): every Content part is kept verbatim in the user_input step, a list of
// steps is kept whole, the agent reads the text of the turn it answers and names the parts it cannot
// read, and include_input gives the input back exactly as sent, rebuilt from the steps.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inputAsSent, readInput } from "../../server/api/interaction-input.js";
import { unreadOnlySentence, unreadSentence, withUnreadParts } from "../../server/agent/unread-parts.js";
import { InvalidArgumentError } from "../../server/common/errors.js";
import type { CreateInteractionRequest } from "../../server/api/create-interaction.js";

type Input = CreateInteractionRequest["input"];

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==";
const image = { type: "image", data: PNG, mime_type: "image/png" };

const contentOf = (step: unknown): unknown[] => (step as { content: unknown[] }).content;

/** readInput refuses the input with a 400 saying exactly this. */
function refuses(input: unknown, message: string): void {
  assert.throws(
    () => readInput(input as Input),
    (error: unknown) => error instanceof InvalidArgumentError && assert.equal(error.message, message) === undefined,
  );
}

describe("readInput: the steps that record the input", () => {
  it("a string is one user_input step with one text part", () => {
    const read = readInput("Run `ls`");
    assert.deepEqual(read.steps, [{ type: "user_input", content: [{ type: "text", text: "Run `ls`" }] }]);
    assert.deepEqual(read.shape, { form: "string", steps: 1 });
    assert.equal(read.text, "Run `ls`");
    assert.deepEqual(read.unread, []);
  });

  it("no input is a user_input step with empty text, as before", () => {
    const read = readInput(undefined);
    assert.deepEqual(read.steps, [{ type: "user_input", content: [{ type: "text", text: "" }] }]);
    assert.deepEqual(read.shape, { form: "none", steps: 1 });
  });

  it("a Content list keeps every part verbatim, in order, fields and all", () => {
    const parts = [
      { type: "text", text: "look at these" },
      { ...image, resolution: "high" },
      { type: "audio", uri: "https://example.com/a.wav", mime_type: "audio/wav", sample_rate: 16000, channels: 1 },
      { type: "document", data: "JVBERi0=", mime_type: "application/pdf" },
      { type: "video", uri: "gs://bucket/v.mp4", name: "clip" },
      { type: "text", text: "and read `/workspace/a`" },
    ];
    const read = readInput(parts);
    assert.deepEqual(read.steps, [{ type: "user_input", content: parts }]);
    assert.equal(contentOf(read.steps[0])[1], parts[1], "the very same part, not a copy that could drift");
    assert.equal(read.text, "look at these\nand read `/workspace/a`");
    assert.deepEqual(read.unread, [
      { type: "image", mime_type: "image/png" },
      { type: "audio", mime_type: "audio/wav" },
      { type: "document", mime_type: "application/pdf" },
      { type: "video" },
    ]);
  });

  it("one Content object is one user_input step", () => {
    const read = readInput(image as Input);
    assert.deepEqual(read.steps, [{ type: "user_input", content: [image] }]);
    assert.deepEqual(read.shape, { form: "content", steps: 1 });
    assert.equal(read.text, "");
  });

  // The document check refuses these first; under EMULATOR_LOOSE they reach readInput, which keeps what it
  // records to the document's Content and Steps (server/agent/steps.ts) instead of storing them as sent.
  it("refuses a part of a type the document does not declare, naming the types it does", () => {
    refuses(
      [
        { type: "text", text: "hi" },
        { type: "hologram", data: 1 },
      ],
      'input[1].type "hologram" is not a Content type of the API: use text, image, audio, document, video',
    );
  });

  it("refuses a media part whose mime_type the document does not list for its type, naming those it does", () => {
    refuses(
      { type: "document", data: "JVBERi0=", mime_type: "image/png" },
      `input.mime_type "image/png" is not one of the API's MIME types for document: use one of application/pdf, text/csv`,
    );
    refuses(
      [{ type: "user_input", content: [{ ...image, mime_type: "image/svg+xml" }] }],
      `input[0].content[0].mime_type "image/svg+xml" is not one of the API's MIME types for image: use one of image/png, image/jpeg, image/webp, image/heic, image/heif, image/gif, image/bmp, image/tiff`,
    );
  });

  it("refuses a history item of a type the document does not declare", () => {
    refuses(
      [{ type: "user_input", content: [] }, { type: "tool_dream" }],
      'input[1].type "tool_dream" is not a step type of the API: a history\'s steps are user_input, model_output, thought, function_call, function_result, code_execution_call, code_execution_result, mcp_server_tool_call, mcp_server_tool_result, google_search_call, google_search_result, google_maps_call, google_maps_result, url_context_call, url_context_result, file_search_call, file_search_result, retrieval_call, retrieval_result, processing_call, processing_result',
    );
  });

  it("a list of steps is kept whole; the agent reads the last user_input step", () => {
    const history = [
      { type: "user_input", content: [{ type: "text", text: "first" }] },
      { type: "model_output", content: [{ type: "text", text: "answer" }] },
      { type: "function_call", id: "call_1", name: "lookup", arguments: { q: 1 } },
      { type: "function_result", call_id: "call_1", name: "lookup", result: "42" },
      { type: "thought", signature: "abc" },
      { type: "user_input", content: [{ type: "text", text: "second" }, image] },
    ];
    const read = readInput(history as Input);
    assert.deepEqual(read.steps, history);
    assert.deepEqual(read.shape, { form: "steps", steps: 6 });
    assert.equal(read.text, "second");
    assert.deepEqual(read.unread, [{ type: "image", mime_type: "image/png" }]);
  });

  it("a list of steps without a user_input step gives the agent no text", () => {
    const read = readInput([{ type: "function_result", call_id: "c", name: "f", result: "r" }] as Input);
    assert.equal(read.text, "");
    assert.deepEqual(read.shape, { form: "steps", steps: 1 });
  });
});

describe("readInput refuses, naming the item and what to write", () => {
  const refused: Array<[string, unknown, RegExp]> = [
    ["a text part whose text is not a string", [{ type: "text", text: 3 }], /input\[0\]\.text must be a string/],
    ["a part that is not an object", [{ type: "text", text: "a" }, 5], /input\[1\] must be a Content object/],
    ["an image with neither data nor uri", [{ type: "image", mime_type: "image/png" }], /input\[0\] \(image\) has neither data nor uri/],
    ["data that is not base64", [{ type: "image", data: "not base64!", mime_type: "image/png" }], /input\[0\]\.data is not valid base64/],
    ["a uri that is not a string", [{ type: "video", uri: 7 }], /input\[0\]\.uri must be a string/],
    ["one image object without data", { type: "image", uri: 5 }, /^input\.uri must be a string/],
    [
      "a bad part inside a user_input step of a history",
      [{ type: "user_input", content: [{ type: "audio" }] }],
      /input\[0\]\.content\[0\] \(audio\) has neither data nor uri/,
    ],
    ["a user_input step whose content is not a list", [{ type: "user_input", content: "hi" }], /input\[0\]\.content must be a list/],
    [
      "a list that mixes Content and Steps",
      [
        { type: "text", text: "a" },
        { type: "user_input", content: [] },
      ],
      /input\[0\] is Content of type text, but input\[1\] is a step of type user_input: a list is either Content or Steps/,
    ],
    [
      "one step on its own, not in a list",
      { type: "user_input", content: [] },
      /input is one user_input step; a history of steps must be a list/,
    ],
  ];
  for (const [what, input, pattern] of refused) {
    it(what, () =>
      assert.throws(
        () => readInput(input as Input),
        (error: unknown) => error instanceof InvalidArgumentError && pattern.test(error.message),
      ),
    );
  }

  it("accepts base64 with line breaks, URL-safe base64 and unpadded base64, as JSON bytes are", () => {
    for (const data of [`${PNG.slice(0, 40)}\n${PNG.slice(40)}`, "-_-_", "YQ"]) {
      assert.doesNotThrow(() => readInput([{ type: "image", data, mime_type: "image/png" }] as Input), data);
    }
  });
});

describe("inputAsSent gives the input back exactly as sent", () => {
  const inputs: Array<[string, unknown]> = [
    ["a string", "hello"],
    ["an empty string", ""],
    ["one Content", image],
    ["a Content list", [{ type: "text", text: "a" }, image]],
    ["an empty Content list", []],
    [
      "a history",
      [
        { type: "user_input", content: [{ type: "text", text: "q" }] },
        { type: "model_output", content: [{ type: "text", text: "a" }] },
      ],
    ],
  ];
  for (const [what, input] of inputs) {
    it(what, () => {
      const read = readInput(input as Input);
      // The steps as a store would give them back (JSON), followed by the agent's own steps.
      const stored = JSON.parse(JSON.stringify([...read.steps, { type: "model_output", content: [{ type: "text", text: "x" }] }]));
      assert.deepEqual(inputAsSent(read.shape, stored), input);
    });
  }

  it("no input gives none back", () => assert.equal(inputAsSent(readInput(undefined).shape, readInput(undefined).steps), undefined));
});

describe("the sentence that names the parts the agent could not read", () => {
  it("counts each kind, in a fixed order, with its MIME types as they first appear", () => {
    assert.equal(
      unreadSentence([
        { type: "document", mime_type: "application/pdf" },
        { type: "image", mime_type: "image/png" },
        { type: "image", mime_type: "image/jpeg" },
        { type: "image", mime_type: "image/png" },
        { type: "hologram" },
        { type: "audio" },
      ]),
      'I could not read 3 images (image/png, image/jpeg), 1 audio clip (no MIME type), 1 document (application/pdf) and 1 part of type "hologram" (no MIME type): the emulated agent reads only the text of the input.',
    );
  });

  it("one image", () =>
    assert.equal(
      unreadSentence([{ type: "image", mime_type: "image/png" }]),
      "I could not read 1 image (image/png): the emulated agent reads only the text of the input.",
    ));

  it("an input of nothing but parts it cannot read is not called empty", () =>
    assert.equal(
      unreadOnlySentence([{ type: "video", mime_type: "video/mp4" }]),
      "Your message had no text for the emulated agent to read. I could not read 1 video (video/mp4): the emulated agent reads only the text of the input.",
    ));

  it("is the last paragraph of an answer, and nothing when every part was text", () => {
    assert.equal(
      withUnreadParts("Ran it.", [{ type: "image", mime_type: "image/gif" }]),
      `Ran it.\n\n${unreadSentence([{ type: "image", mime_type: "image/gif" }])}`,
    );
    assert.equal(withUnreadParts("Ran it.", []), "Ran it.");
    assert.equal(unreadSentence([]), "");
  });
});
