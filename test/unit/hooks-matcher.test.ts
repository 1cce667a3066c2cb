import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileMatcher, explainMatch, matchesTool } from "../../server/hooks/matcher.js";

const ALL = ["code_execution", "read_file", "write_file", "list_files", "delete_file"];

describe("matchers match the whole tool name with RE2", () => {
  const table: Array<{ matcher: string | null; matches: string[] }> = [
    { matcher: "code_execution", matches: ["code_execution"] },
    { matcher: "write_file", matches: ["write_file"] },
    { matcher: "code_exec", matches: [] },
    { matcher: "execution", matches: [] },
    { matcher: "read_file|write_file", matches: ["read_file", "write_file"] },
    { matcher: ".*_file", matches: ["read_file", "write_file", "delete_file"] },
    { matcher: ".*_files?", matches: ["read_file", "write_file", "list_files", "delete_file"] },
    { matcher: "*", matches: ALL },
    { matcher: "", matches: ALL },
    { matcher: ".*", matches: ALL },
    { matcher: null, matches: ALL },
    { matcher: "*_file", matches: [] },
    { matcher: "(?i)READ_FILE", matches: ["read_file"] },
    { matcher: "Bash", matches: [] },
    { matcher: "[", matches: [] },
  ];
  for (const { matcher, matches } of table) {
    it(`${JSON.stringify(matcher)} matches ${matches.length === 0 ? "no tool" : matches.join(", ")}`, () => {
      const { matcher: compiled } = compileMatcher(matcher);
      assert.deepEqual(
        ALL.filter((tool) => matchesTool(compiled, tool)),
        matches,
      );
    });
  }

  it("keeps an alternation inside the anchors", () => {
    const { matcher } = compileMatcher("read_file|write");
    assert.equal(matchesTool(matcher, "read_file"), true);
    assert.equal(matchesTool(matcher, "write_file"), false);
  });
});

describe("matcher diagnostics", () => {
  const table: Array<{ matcher: string; code: string | null; mentions?: string }> = [
    { matcher: "code_execution", code: null },
    { matcher: "*", code: null },
    { matcher: "", code: null },
    { matcher: "*_file", code: "matcher_invalid_regex", mentions: '".*_file"' },
    { matcher: "**", code: "matcher_invalid_regex" },
    { matcher: "(?=read)", code: "matcher_invalid_regex" },
    { matcher: "read_*", code: "matcher_matches_no_tool", mentions: '"read_.*"' },
    { matcher: "Bash", code: "matcher_matches_no_tool", mentions: '"code_execution"' },
    { matcher: "run_command", code: "matcher_matches_no_tool", mentions: '"code_execution"' },
    { matcher: "Read", code: "matcher_matches_no_tool", mentions: '"read_file"' },
    { matcher: "code_exec", code: "matcher_matches_no_tool", mentions: '"code_exec.*"' },
    { matcher: "Write_File", code: "matcher_matches_no_tool", mentions: "case-sensitive" },
    { matcher: "_file", code: "matcher_matches_no_tool", mentions: '".*_file"' },
    { matcher: "mcp__github", code: "matcher_matches_no_tool", mentions: '".*"' },
  ];
  for (const { matcher, code, mentions } of table) {
    it(`${JSON.stringify(matcher)} ${code === null ? "needs no diagnostic" : `gives ${code}`}`, () => {
      const { problems } = compileMatcher(matcher);
      assert.deepEqual(
        problems.map((problem) => problem.code),
        code === null ? [] : [code],
      );
      if (mentions !== undefined) assert.ok(problems[0]?.message.includes(mentions), problems[0]?.message);
    });
  }

  it("marks an invalid matcher as an error and a matcher that fits no tool as a warning", () => {
    assert.equal(compileMatcher("*_file").problems[0]?.severity, "error");
    assert.equal(compileMatcher("Bash").problems[0]?.severity, "warning");
  });

  it("explains a match and a miss for the trace", () => {
    assert.match(explainMatch(compileMatcher("read_file").matcher, "read_file"), /matches the whole name "read_file"/);
    assert.match(explainMatch(compileMatcher("code_exec").matcher, "code_execution"), /does not match the whole name/);
    assert.match(explainMatch(compileMatcher("*_file").matcher, "read_file"), /not valid RE2.*matches nothing/);
    assert.match(explainMatch(compileMatcher(null).matcher, "read_file"), /no matcher/);
  });
});
