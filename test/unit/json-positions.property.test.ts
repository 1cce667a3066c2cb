// The position finder behind `hooks check`'s line and column: it must accept exactly what JSON.parse
// accepts, and every node it finds must span exactly the text of the value JSON.parse reads there.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { lineAndColumn, nodeAt, parseJsonPositions, type JsonPathStep } from "../../server/common/json-positions.js";
import { runs } from "../support/property-runs.js";

/** Every path into a parsed value, with the value found there. */
function pathsOf(value: unknown, path: JsonPathStep[] = []): Array<{ path: JsonPathStep[]; value: unknown }> {
  const here = [{ path, value }];
  if (Array.isArray(value)) return here.concat(value.flatMap((item, index) => pathsOf(item, [...path, index])));
  if (typeof value === "object" && value !== null) {
    return here.concat(Object.entries(value).flatMap(([key, item]) => pathsOf(item, [...path, key])));
  }
  return here;
}

/** JSON text of a value with `space` between every token (JSON's four white-space characters only). */
function spaced(value: unknown, space: string): string {
  if (Array.isArray(value)) return `[${space}${value.map((item) => spaced(item, space)).join(`${space},${space}`)}${space}]`;
  if (typeof value === "object" && value !== null) {
    const members = Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}${space}:${space}${spaced(item, space)}`);
    return `{${space}${members.join(`${space},${space}`)}${space}}`;
  }
  return JSON.stringify(value);
}

const layout = fc.oneof(
  fc.constantFrom(undefined, 0, 2, "\t").map((indent) => (value: unknown) => JSON.stringify(value, null, indent)),
  fc.stringMatching(/^[ \t\r\n]{0,3}$/).map((space) => (value: unknown) => spaced(value, space)),
);

describe("JSON positions", () => {
  it("accept exactly the texts JSON.parse accepts", () => {
    const nearJson = fc.oneof(
      fc.json(),
      fc
        .json()
        .chain((text) =>
          fc
            .tuple(fc.nat(text.length), fc.nat(3), fc.constantFrom("", ",", "}", "]", '"', "\\", "\u0000", " ", "1", "\uFEFF"))
            .map(([at, drop, insert]) => text.slice(0, at) + insert + text.slice(at + drop)),
        ),
      fc.string({ unit: "binary", maxLength: 30 }),
    );
    fc.assert(
      fc.property(nearJson, (text) => {
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        assert.equal(parseJsonPositions(text).ok, parses, JSON.stringify(text));
      }),
      runs(2000),
    );
  });

  it("find every value of a document at the text JSON.parse reads it from", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), layout, (value, write) => {
        const text = write(value);
        const positions = parseJsonPositions(text);
        assert.ok(positions.ok);
        const parsed = JSON.parse(text) as unknown;
        for (const { path, value: expected } of pathsOf(parsed)) {
          const found = nodeAt(positions.root, path);
          assert.ok(found.complete, `path ${JSON.stringify(path)}`);
          assert.deepEqual(JSON.parse(text.slice(found.node.start, found.node.end)), expected);
        }
      }),
      runs(500),
    );
  });

  it("take a duplicated key's last occurrence, the one JSON.parse keeps", () => {
    const text = '{"a": 1, "b": {"x": 2}, "a": [3]}';
    const positions = parseJsonPositions(text);
    assert.ok(positions.ok);
    const found = nodeAt(positions.root, ["a"]);
    assert.equal(text.slice(found.node.start, found.node.end), "[3]");
    assert.equal(text.slice(found.member!.keyStart, found.member!.keyStart + 3), '"a"');
    assert.equal(found.member!.keyStart, text.lastIndexOf('"a"'));
  });

  it("stop at the deepest node a path reaches when the path leaves the document", () => {
    const text = '{"g": {"pre": [{"hooks": []}]}}';
    const positions = parseJsonPositions(text);
    assert.ok(positions.ok);
    const found = nodeAt(positions.root, ["g", "pre", 0, "hooks", 5]);
    assert.equal(found.complete, false);
    assert.equal(text.slice(found.node.start, found.node.end), "[]");
  });

  it("point at where a text stops being JSON", () => {
    for (const [text, offset] of [
      ['{"a": [1,}', 9],
      ['{"a" 1}', 5],
      ["\uFEFF{}", 0],
      ['{"a": 1} x', 9],
      ['{"a": "line\nbreak"}', 11],
    ] as const) {
      const positions = parseJsonPositions(text);
      assert.deepEqual(positions, { ok: false, offset }, JSON.stringify(text));
    }
  });

  it("count lines and columns as editors do (1-based, UTF-16 columns, CRLF as one break)", () => {
    const text = "a\r\nbc\n\u00e9\u{1F600}x";
    assert.deepEqual(lineAndColumn(text, 0), { line: 1, column: 1 });
    assert.deepEqual(lineAndColumn(text, 4), { line: 2, column: 2 });
    assert.deepEqual(lineAndColumn(text, text.indexOf("x")), { line: 3, column: 4 });
  });
});
