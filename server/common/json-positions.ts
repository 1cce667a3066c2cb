// Where things are in a JSON text: a small JSON parser that keeps the offset of every value and key, so
// that a diagnostic about "group x, pre_tool_execution[0], hooks[1], field timeout" can be shown at its
// line and column. JSON.parse keeps no positions; this parser accepts exactly what JSON.parse accepts
// (RFC 8259), and where it fails, that offset is where the text stops being JSON.

export interface JsonMember {
  key: string;
  keyStart: number;
  value: JsonNode;
}

/** A value, from its first character (start) to just after its last (end). */
export type JsonNode =
  | { kind: "object"; start: number; end: number; members: JsonMember[] }
  | { kind: "array"; start: number; end: number; items: JsonNode[] }
  | { kind: "scalar"; start: number; end: number };

export type JsonPositions = { ok: true; root: JsonNode } | { ok: false; offset: number };

/** One step of a path: an object key (its last occurrence, the one JSON.parse keeps) or an array index. */
export type JsonPathStep = string | number;

class JsonSyntaxError extends Error {
  constructor(readonly offset: number) {
    super(`not JSON at offset ${offset}`);
  }
}

export function parseJsonPositions(text: string): JsonPositions {
  const parser = new PositionParser(text);
  try {
    parser.skipWhitespace();
    const root = parser.value();
    parser.skipWhitespace();
    if (parser.at < text.length) throw new JsonSyntaxError(parser.at);
    return { ok: true, root };
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { ok: false, offset: error.offset };
    throw error;
  }
}

/**
 * The node at `path`, as deep as the path can be followed: a path that leaves the document (a key that
 * is not there) ends at the last node it reached, which is still the best place to point at.
 */
export function nodeAt(root: JsonNode, path: readonly JsonPathStep[]): { node: JsonNode; member: JsonMember | null; complete: boolean } {
  let node = root;
  let member: JsonMember | null = null;
  for (const step of path) {
    if (typeof step === "number" && node.kind === "array" && step >= 0 && step < node.items.length) {
      node = node.items[step]!;
      member = null;
      continue;
    }
    if (typeof step === "string" && node.kind === "object") {
      const found = lastMember(node.members, step);
      if (found) {
        node = found.value;
        member = found;
        continue;
      }
    }
    return { node, member, complete: false };
  }
  return { node, member, complete: true };
}

function lastMember(members: readonly JsonMember[], key: string): JsonMember | undefined {
  for (let i = members.length - 1; i >= 0; i--) if (members[i]!.key === key) return members[i];
  return undefined;
}

/** 1-based line and column (in UTF-16 code units, as editors count them) of an offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

class PositionParser {
  at = 0;

  constructor(private readonly text: string) {}

  skipWhitespace(): void {
    while (this.at < this.text.length) {
      const char = this.text[this.at];
      if (char !== " " && char !== "\t" && char !== "\n" && char !== "\r") return;
      this.at++;
    }
  }

  value(): JsonNode {
    const start = this.at;
    const char = this.text[this.at];
    if (char === "{") return this.object();
    if (char === "[") return this.array();
    if (char === '"') {
      this.string();
      return { kind: "scalar", start, end: this.at };
    }
    for (const literal of ["true", "false", "null"]) {
      if (this.text.startsWith(literal, this.at)) {
        this.at += literal.length;
        return { kind: "scalar", start, end: this.at };
      }
    }
    const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    number.lastIndex = this.at;
    if (number.test(this.text)) {
      this.at = number.lastIndex;
      return { kind: "scalar", start, end: this.at };
    }
    throw new JsonSyntaxError(this.at);
  }

  private object(): JsonNode {
    const node: JsonNode & { kind: "object" } = { kind: "object", start: this.at, end: this.at, members: [] };
    this.at++;
    this.skipWhitespace();
    if (this.text[this.at] === "}") {
      this.at++;
      node.end = this.at;
      return node;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.at] !== '"') throw new JsonSyntaxError(this.at);
      const keyStart = this.at;
      const key = this.string();
      this.skipWhitespace();
      if (this.text[this.at] !== ":") throw new JsonSyntaxError(this.at);
      this.at++;
      this.skipWhitespace();
      node.members.push({ key, keyStart, value: this.value() });
      this.skipWhitespace();
      const next = this.text[this.at];
      this.at++;
      if (next === "}") {
        node.end = this.at;
        return node;
      }
      if (next !== ",") throw new JsonSyntaxError(this.at - 1);
    }
  }

  private array(): JsonNode {
    const node: JsonNode & { kind: "array" } = { kind: "array", start: this.at, end: this.at, items: [] };
    this.at++;
    this.skipWhitespace();
    if (this.text[this.at] === "]") {
      this.at++;
      node.end = this.at;
      return node;
    }
    for (;;) {
      this.skipWhitespace();
      node.items.push(this.value());
      this.skipWhitespace();
      const next = this.text[this.at];
      this.at++;
      if (next === "]") {
        node.end = this.at;
        return node;
      }
      if (next !== ",") throw new JsonSyntaxError(this.at - 1);
    }
  }

  /** A string token (the cursor on its opening quote); its value. */
  private string(): string {
    const start = this.at;
    let end = start + 1;
    for (;;) {
      if (end >= this.text.length) throw new JsonSyntaxError(end);
      const code = this.text.charCodeAt(end);
      if (code === 0x22) break;
      if (code < 0x20) throw new JsonSyntaxError(end);
      end += code === 0x5c ? 2 : 1;
    }
    this.at = end + 1;
    try {
      // The token's escapes are JSON's own: let JSON.parse read them (and refuse a bad one).
      return JSON.parse(this.text.slice(start, end + 1)) as string;
    } catch {
      throw new JsonSyntaxError(start);
    }
  }
}
