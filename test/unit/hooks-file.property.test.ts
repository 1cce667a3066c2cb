// Properties of the hooks.json parser and the rule matchers, over inputs no table of examples covers:
// arbitrary text and JSON, documents near the schema (right keys with wrong values, typos, mutations of
// valid files), unicode, prototype-ish names. The parser's contract is that it never throws (a broken
// config must never break a tool call) and never drops anything silently (a skipped element always
// comes with an error diagnostic at its location); the matcher's is that it never throws, at compile
// or at match time, and matches the whole tool name.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import RE2 from "re2";
import { objectKeysInFileOrder, parseHooksFile, type HookHandler, type ParsedHooksFile } from "../../server/hooks/hooks-file.js";
import { BUILT_IN_TOOLS, compileMatcher, explainMatch, matchesTool } from "../../server/hooks/matcher.js";
import { HOOK_EVENTS, type HookDiagnostic } from "../../server/hooks/trace.js";
import { runs } from "../support/property-runs.js";

const FILE = "/workspace/.agents/hooks.json";

// ---- Arbitraries: strings, names and values near the grammar ----

/** Any string, lone surrogates included. */
const anyString = fc.string({ unit: "binary", maxLength: 40 });

/** Keys the parser reads, keys people write instead, and names JavaScript objects treat specially. */
const interestingKey = fc.constantFrom(
  "enabled",
  "pre_tool_execution",
  "post_tool_execution",
  "matcher",
  "hooks",
  "type",
  "command",
  "url",
  "headers",
  "timeout",
  "PreToolUse",
  "matchers",
  "cmd",
  "timeout_ms",
  "handlers",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "10",
  "0",
  "",
);
const key = fc.oneof({ weight: 3, arbitrary: interestingKey }, { weight: 1, arbitrary: anyString });

const matcherSource = fc.oneof(
  fc.constantFrom(
    "*",
    "",
    ".*",
    "code_execution",
    "read_file|write_file",
    ".*_file",
    "*_file",
    "read_*",
    "Bash",
    "bash",
    "Code_Execution",
    "code",
    "(",
    "[z-a]",
    "a{1001}",
    "\\",
    "(?P<name>x)",
    "\\p{Greek}",
    "(?i)READ_FILE",
    "x**",
    "\u0000",
    "\ud800",
  ),
  fc.stringMatching(/^[a-z_.*+?|()[\]\\^$-]{0,16}$/),
  anyString,
);

const url = fc.oneof(
  fc.constantFrom(
    "https://hooks.example.com/gate",
    "http://127.0.0.1:9/x",
    "http://[::1]/",
    "http://localhost./x",
    "ftp://example.com/",
    "https://",
    "/relative",
    "http://exa mple.com/",
    "https://xn--bcher-kva.example/",
    "http://0x7f.1/",
  ),
  fc.webUrl(),
  anyString,
);

const headerName = fc.oneof(fc.constantFrom("X-Event", "Authorization", "@file", "Bad Name", "X\r\nInjected", "__proto__", ""), anyString);
const headerValue = fc.oneof(fc.constantFrom("v", "a\r\nb", "nul\u0000", ""), anyString);
const headers = fc.oneof(fc.dictionary(headerName, headerValue, { maxKeys: 4 }), fc.jsonValue({ maxDepth: 1 }), fc.constant(null));

const timeout = fc.oneof(
  fc.constantFrom(0, -1, 10, 0.5, 1e308, Number.MAX_SAFE_INTEGER, 2 ** 64, "10", null, true),
  fc.double(),
  fc.integer(),
);

/** A handler: valid, valid with mistakes in it, or anything at all. */
const handler = fc.oneof(
  fc.record(
    { type: fc.constant("command"), command: fc.oneof(fc.constant("gate.sh"), anyString), timeout },
    { requiredKeys: ["type", "command"] },
  ),
  fc.record({ type: fc.constant("http"), url, headers, timeout }, { requiredKeys: ["type", "url"] }),
  fc.record(
    {
      type: fc.oneof(fc.constantFrom("command", "http", "Command", "HTTP", "mcp"), fc.jsonValue({ maxDepth: 0 })),
      command: fc.jsonValue({ maxDepth: 1 }),
      url: fc.jsonValue({ maxDepth: 1 }),
      headers,
      timeout,
      cmd: fc.string(),
    },
    { requiredKeys: [] },
  ),
  fc.dictionary(key, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 1 }),
);

const rule = fc.oneof(
  { weight: 3, arbitrary: fc.record({ matcher: matcherSource, hooks: fc.array(handler, { maxLength: 3 }) }, { requiredKeys: ["hooks"] }) },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        matcher: fc.oneof(matcherSource, fc.jsonValue({ maxDepth: 1 })),
        hooks: fc.oneof(fc.array(handler, { maxLength: 2 }), fc.jsonValue()),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
);

const eventValue = fc.oneof(
  { weight: 4, arbitrary: fc.array(rule, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
);

const group = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        enabled: fc.oneof(fc.boolean(), fc.constantFrom("true", 1, null)),
        pre_tool_execution: eventValue,
        post_tool_execution: eventValue,
        PreToolUse: eventValue,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
);

/** A hooks.json as its entries in file order: names may repeat (the last definition applies). */
const groupEntries = fc.array(fc.tuple(key, group), { maxLength: 4 });

const whitespace = fc.constantFrom("", " ", "\n", "\t", "\r\n  ");

/** JSON text of an object with these entries, written as given (duplicates kept) with some whitespace. */
function objectText(entries: Array<[string, unknown]>, space: string): string {
  const members = entries.map(
    ([name, value]) => `${space}${JSON.stringify(name)}${space}:${space}${JSON.stringify(value, null, space ? 1 : 0)}`,
  );
  return `${space}{${members.join(",")}${space}}${space}`;
}

const hooksFileText = fc.tuple(groupEntries, whitespace).map(([entries, space]) => ({ entries, text: objectText(entries, space) }));

/** Text-level mutations of a near-valid file: cut, duplicated and inserted characters. */
const mutatedText = fc
  .tuple(
    hooksFileText,
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.nat({ max: 8 }),
        fc.constantFrom("", "{", "}", "[", "]", '"', ",", ":", "\\", "\u0000", "\ud83d", "é", "1e999"),
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
  )
  .map(([{ text }, edits]) => {
    let out = text;
    for (const [at, cut, insert] of edits) {
      const position = out.length === 0 ? 0 : at % out.length;
      out = out.slice(0, position) + insert + out.slice(position + cut);
    }
    return out;
  });

// ---- What every parse result must look like ----

const SEVERITIES = new Set(["error", "warning", "info"]);

/** The diagnostics that say an element was skipped, by the level of the element. */
const SKIPPED = {
  group: new Set(["group_not_object", "group_invalid"]),
  rule: new Set(["rule_not_object", "rule_invalid"]),
  handler: new Set(["handler_not_object", "handler_type_missing", "handler_type_unknown", "handler_invalid"]),
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(object: Record<string, unknown>, name: string): unknown {
  return Object.getOwnPropertyDescriptor(object, name)?.value;
}

function skippedAt(diagnostics: HookDiagnostic[], level: keyof typeof SKIPPED, where: Record<string, unknown>): number {
  return diagnostics.filter(
    (diagnostic) =>
      SKIPPED[level].has(diagnostic.code) &&
      diagnostic.severity === "error" &&
      Object.entries(where).every(([name, value]) => (diagnostic.location as unknown as Record<string, unknown>)?.[name] === value),
  ).length;
}

function assertHandlerSound(handler: HookHandler): void {
  assert.ok(Number.isFinite(handler.timeoutS) && handler.timeoutS > 0, `timeout ${handler.timeoutS}`);
  if (handler.type === "command") {
    assert.equal(typeof handler.command, "string");
    assert.ok(handler.command.trim().length > 0, "a command handler has a command");
    return;
  }
  const parsed = new URL(handler.url);
  assert.ok(parsed.protocol === "http:" || parsed.protocol === "https:", handler.url);
  for (const [name, value] of Object.entries(handler.headers)) {
    assert.match(name, /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/);
    assert.doesNotMatch(value, /[\r\n\0]/);
  }
}

/**
 * The parse result is well formed, and every element of the document either made it into the result
 * or has an error diagnostic at its place: nothing is dropped without telling the user.
 */
function assertWellFormed(text: string, parsed: ParsedHooksFile): void {
  for (const diagnostic of parsed.diagnostics) {
    assert.ok(SEVERITIES.has(diagnostic.severity), diagnostic.severity);
    assert.match(diagnostic.code, /^[a-z_]+$/);
    assert.ok(typeof diagnostic.message === "string" && diagnostic.message.length > 0);
    assert.equal(diagnostic.location?.file, FILE);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    assert.equal(parsed.status, "invalid_json");
    assert.deepEqual(parsed.groups, []);
    assert.deepEqual(
      parsed.diagnostics.map((diagnostic) => diagnostic.code),
      ["invalid_json"],
    );
    return;
  }
  assert.equal(parsed.status, "loaded");
  if (!isPlainObject(document)) {
    assert.deepEqual(parsed.groups, []);
    assert.deepEqual(
      parsed.diagnostics.map((diagnostic) => diagnostic.code),
      ["top_level_not_object"],
    );
    return;
  }
  const names = Object.keys(document);
  const kept = parsed.groups.map((each) => each.name);
  assert.equal(new Set(kept).size, kept.length, "group names are unique");
  for (const name of names) {
    const count = kept.filter((each) => each === name).length + skippedAt(parsed.diagnostics, "group", { group: name, event: undefined });
    assert.equal(count, 1, `group ${JSON.stringify(name)} is either kept or reported skipped`);
  }
  for (const each of parsed.groups) {
    assert.ok(Object.hasOwn(document, each.name));
    assert.equal(typeof each.enabled, "boolean");
    const raw = own(document, each.name) as Record<string, unknown>;
    for (const event of HOOK_EVENTS) {
      const rawRules = own(raw, event);
      const rules = each.events[event];
      if (!Array.isArray(rawRules)) {
        assert.deepEqual(rules, []);
        continue;
      }
      const indexes = rules.map((rule) => rule.index);
      assert.deepEqual(
        indexes,
        [...indexes].sort((a, b) => a - b),
        "rules stay in file order",
      );
      rawRules.forEach((rawRule, index) => {
        const at = { group: each.name, event, rule_index: index, handler_index: undefined };
        const keptRule = rules.find((rule) => rule.index === index);
        assert.equal(Number(keptRule !== undefined) + skippedAt(parsed.diagnostics, "rule", at), 1, `rule ${index} kept or reported`);
        if (!keptRule) return;
        const rawHandlers = (rawRule as { hooks: unknown[] }).hooks;
        assert.equal(keptRule.matcherSource, own(rawRule as Record<string, unknown>, "matcher") ?? null);
        rawHandlers.forEach((_, handlerIndex) => {
          const keptHandler = keptRule.handlers.find((entry) => entry.index === handlerIndex);
          const reported = skippedAt(parsed.diagnostics, "handler", { ...at, handler_index: handlerIndex });
          assert.equal(Number(keptHandler !== undefined) + reported, 1, `handler ${handlerIndex} of rule ${index} kept or reported`);
          if (!keptHandler) return;
          assertHandlerSound(keptHandler.handler);
          if (keptHandler.handler.type === "http") {
            const rawHeaders = own(rawHandlers[handlerIndex] as Record<string, unknown>, "headers") ?? {};
            assert.deepEqual(Object.keys(keptHandler.handler.headers), Object.keys(rawHeaders as object), "every header is kept");
          }
        });
      });
    }
  }
}

// ---- The normal form of a parse result, to write it back out and read it again ----

type NormalGroup = { name: string; enabled: boolean; events: Record<string, Array<{ matcher: string | null; hooks: unknown[] }>> };

function normalise(parsed: ParsedHooksFile): NormalGroup[] {
  return parsed.groups.map((each) => ({
    name: each.name,
    enabled: each.enabled,
    events: Object.fromEntries(
      HOOK_EVENTS.map((event) => [
        event,
        each.events[event].map((rule) => ({
          matcher: rule.matcherSource,
          hooks: rule.handlers.map(({ handler }) =>
            handler.type === "command"
              ? { type: "command", command: handler.command, timeout: handler.timeoutS }
              : { type: "http", url: handler.url, headers: handler.headers, timeout: handler.timeoutS },
          ),
        })),
      ]),
    ),
  }));
}

/** The normal form as hooks.json text, written member by member ("__proto__" is a name like any other). */
function writeNormal(groups: NormalGroup[]): string {
  const members = groups.map((each) => {
    const events = HOOK_EVENTS.map((event) => {
      const rules = (each.events[event] ?? []).map((rule) => {
        const hooks = rule.hooks.map((entry) => {
          const { headers, ...rest } = entry as { headers?: Record<string, string> };
          const headerText =
            headers === undefined
              ? ""
              : `,"headers":{${Object.entries(headers).map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`)}}`;
          return `${JSON.stringify(rest).slice(0, -1)}${headerText}}`;
        });
        const matcher = rule.matcher === null ? "" : `"matcher":${JSON.stringify(rule.matcher)},`;
        return `{${matcher}"hooks":[${hooks.join(",")}]}`;
      });
      return `${JSON.stringify(event)}:[${rules.join(",")}]`;
    });
    return `${JSON.stringify(each.name)}:{"enabled":${each.enabled},${events.join(",")}}`;
  });
  return `{${members.join(",")}}`;
}

/** Diagnostics that mean something in the file was skipped or ignored: the normal form has none. */
const IGNORING = new Set([
  "invalid_json",
  "top_level_not_object",
  "duplicate_group",
  "group_not_object",
  "group_invalid",
  "event_not_array",
  "rule_not_object",
  "rule_invalid",
  "handler_not_object",
  "handler_type_missing",
  "handler_type_unknown",
  "handler_invalid",
  "unknown_key",
  "likely_typo",
  "misplaced_key",
]);

// ---- The properties ----

describe("hooks.json parser: properties", () => {
  it("never throws on any text at all, and reports it as not JSON or as a well-formed result", () => {
    fc.assert(
      fc.property(fc.oneof(anyString, fc.string({ unit: "grapheme", maxLength: 200 }), fc.json()), (text) => {
        assertWellFormed(text, parseHooksFile(text, FILE));
      }),
      runs(400),
    );
  });

  it("never throws on files near the schema, and keeps or reports every group, rule and handler", () => {
    fc.assert(
      fc.property(hooksFileText, ({ text }) => {
        assertWellFormed(text, parseHooksFile(text, FILE));
      }),
      runs(600),
    );
  });

  it("never throws on mutations of near-valid files", () => {
    fc.assert(
      fc.property(mutatedText, (text) => {
        assertWellFormed(text, parseHooksFile(text, FILE));
      }),
      runs(500),
    );
  });

  it("keeps groups in the order the file first names them, each from its last definition", () => {
    fc.assert(
      fc.property(hooksFileText, ({ entries, text }) => {
        const parsed = parseHooksFile(text, FILE);
        const firstSeen = [...new Set(entries.map(([name]) => name))];
        assert.deepEqual(
          parsed.groups.map((each) => each.name),
          firstSeen.filter((name) => parsed.groups.some((each) => each.name === name)),
        );
        for (const name of firstSeen) {
          const definitions = entries.filter(([each]) => each === name).length;
          const warned = parsed.diagnostics.some(
            (diagnostic) => diagnostic.code === "duplicate_group" && diagnostic.location?.group === name,
          );
          assert.equal(warned, definitions > 1, `duplicate warning for ${JSON.stringify(name)}`);
        }
      }),
      runs(400),
    );
  });

  it("reads its own normal form back unchanged, with nothing skipped or ignored", () => {
    fc.assert(
      fc.property(hooksFileText, ({ text }) => {
        const normal = normalise(parseHooksFile(text, FILE));
        const written = writeNormal(normal);
        const again = parseHooksFile(written, FILE);
        assert.deepEqual(normalise(again), normal);
        const ignored = again.diagnostics.filter((diagnostic) => IGNORING.has(diagnostic.code));
        assert.deepEqual(ignored, [], written);
        // Parsing is a function of the text: the same text, the same result.
        assert.deepEqual(normalise(parseHooksFile(written, FILE)), normal);
      }),
      runs(500),
    );
  });

  it("lists an object's top-level keys as JSON.parse sees them, in file order", () => {
    const anyKey = fc.oneof(
      key,
      fc.string({ unit: "grapheme", maxLength: 12 }),
      fc.constantFrom('"', "\\", "{", "}", ",", "\\u0041", "\n"),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(anyKey, fc.jsonValue({ maxDepth: 3 })), { maxLength: 6 }), whitespace, (entries, space) => {
        const text = objectText(entries, space);
        const keys = objectKeysInFileOrder(text);
        assert.deepEqual(
          keys,
          entries.map(([name]) => name),
        );
        assert.deepEqual(new Set(keys), new Set(Object.keys(JSON.parse(text) as object)));
      }),
      runs(400),
    );
  });
});

/** An RE2 pattern that matches exactly this text. */
function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}

/**
 * Patterns in the part of the syntax where RE2 and JavaScript's RegExp mean the same thing. Groups
 * are never repeated: nested quantifiers make the backtracking RegExp (not RE2) take exponential time.
 */
const portablePattern: fc.Arbitrary<string> = fc.letrec<{ pattern: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("code", "read", "write", "list", "delete", "file", "files", "execution", "_", ".", "[a-z]", "[_a-z]", "\\w", "x"),
    tie("pattern").map((inner) => `(${inner})`),
  ),
  pattern: fc.array(fc.tuple(tie("atom"), fc.constantFrom("", "", "*", "+", "?")), { minLength: 1, maxLength: 4 }).chain((sequence) =>
    fc.array(fc.tuple(tie("atom"), fc.constantFrom("", "*", "?")), { maxLength: 2 }).map((alternative) =>
      [sequence, alternative]
        .filter((part) => part.length > 0)
        .map((part) => part.map(([atom, repeat]) => (atom.startsWith("(") ? atom : atom + repeat)).join(""))
        .join("|"),
    ),
  ),
})).pattern;

const toolName = fc.oneof(
  fc.constantFrom(...BUILT_IN_TOOLS),
  fc.constantFrom("Code_Execution", "read_file\n", " read_file", "read_filex", ""),
  anyString,
);

describe("rule matchers: properties", () => {
  it("compile any source without throwing, and say why a rule can never fire", () => {
    fc.assert(
      fc.property(fc.option(matcherSource, { nil: null }), (source) => {
        const { matcher, problems } = compileMatcher(source);
        const catchAll = source === null || source === "*" || source === "" || source === ".*";
        assert.equal(matcher.kind === "catch_all", catchAll);
        for (const problem of problems) assert.ok(problem.message.length > 0);
        if (matcher.kind === "invalid") {
          assert.deepEqual(
            problems.map((problem) => [problem.severity, problem.code]),
            [["error", "matcher_invalid_regex"]],
          );
          for (const tool of BUILT_IN_TOOLS) assert.equal(matchesTool(matcher, tool), false);
        }
        if (matcher.kind === "regex") {
          const firesForSomeTool = BUILT_IN_TOOLS.some((tool) => matchesTool(matcher, tool));
          assert.deepEqual(
            problems.map((problem) => problem.code),
            firesForSomeTool ? [] : ["matcher_matches_no_tool"],
          );
        }
      }),
      runs(500),
    );
  });

  it("never throw at match time, and explain the same answer they give", () => {
    fc.assert(
      fc.property(fc.option(matcherSource, { nil: null }), toolName, (source, tool) => {
        const { matcher } = compileMatcher(source);
        const matched = matchesTool(matcher, tool);
        const explanation = explainMatch(matcher, tool);
        assert.ok(explanation.length > 0);
        if (matcher.kind === "regex") assert.equal(/ does not match /.test(explanation), !matched, explanation);
        if (matcher.kind === "catch_all") assert.equal(matched, true);
      }),
      runs(500),
    );
  });

  it("match the whole tool name: an escaped name matches that name and nothing else", () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...BUILT_IN_TOOLS), fc.string({ minLength: 1, maxLength: 12 })), toolName, (name, tool) => {
        fc.pre(!["*", "", ".*"].includes(escapeRegex(name)));
        const { matcher } = compileMatcher(escapeRegex(name));
        assert.equal(matcher.kind, "regex");
        assert.equal(matchesTool(matcher, tool), tool === name);
        assert.equal(matchesTool(matcher, `${name}x`), false);
        assert.equal(matchesTool(matcher, `x${name}`), false);
      }),
      runs(400),
    );
  });

  it("agree with an anchored JavaScript RegExp wherever the two syntaxes mean the same", () => {
    fc.assert(
      fc.property(
        portablePattern,
        fc.oneof(toolName, fc.string({ unit: fc.constantFrom(..."acdefilnorstwx_"), maxLength: 20 })),
        (pattern, tool) => {
          const { matcher } = compileMatcher(pattern);
          if (matcher.kind === "catch_all") return;
          assert.equal(matcher.kind, "regex", pattern);
          const expected = new RegExp(`^(?:${pattern})$`, "u").test(tool);
          assert.equal(matchesTool(matcher, tool), expected, `${pattern} on ${JSON.stringify(tool)}`);
          // The anchors wrap the whole alternation: RE2 itself, anchored the same way, agrees.
          assert.equal(new RE2(`^(?:${pattern})$`, "u").test(tool), expected);
        },
      ),
      runs(400),
    );
  });
});
