import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { noCallAnswer, PHRASING_HELP, reportOutcomes, shorten, type CallOutcome } from "../../server/planners/scripted/report.js";
import { planFromInput } from "../../server/planners/scripted/scripted-planner.js";
import type { ToolCall } from "../../server/tools/tool-call.js";
import { bash, list, python, read, remove, write } from "../support/tool-calls.js";

const ok = (call: ToolCall, output = "", exitCode?: number): CallOutcome => ({
  call,
  status: "ok",
  output,
  ...(exitCode === undefined ? {} : { exitCode }),
});
const denied = (call: ToolCall, group: string, reason: string): CallOutcome => ({
  call,
  status: "denied",
  output: `Tool call denied by hook "${group}": ${reason}`,
  denial: { group, reason },
});

const PRIVACY_REASON =
  "Access to confidential `/private/` records is blocked by PII compliance policy. Query approved `/public/` summary tables instead.";

describe("the seed's scenarios read as a person expects", () => {
  const cases: [string, CallOutcome[], string][] = [
    [
      "the security gate denies rm -rf",
      [denied(bash("rm -rf /tmp/forbidden"), "security-gate", "Destructive command blocked by security gate.")],
      'The code_execution call `rm -rf /tmp/forbidden` (bash) was denied by hook "security-gate": Destructive command blocked by security gate. I did not retry it.',
    ],
    [
      "the privacy gate denies the private read",
      [denied(read("/workspace/private/employees.json"), "privacy-gate", PRIVACY_REASON)],
      `The read_file call on /workspace/private/employees.json was denied by hook "privacy-gate": ${PRIVACY_REASON} I did not retry it.`,
    ],
    [
      "the approved public read shows the file",
      [ok(read("/workspace/public/summary.json"), '{"department": "Engineering", "team_size": 42, "status": "active"}')],
      'Read /workspace/public/summary.json: {"department": "Engineering", "team_size": 42, "status": "active"}',
    ],
    [
      "the audit log is written and read back",
      [ok(write("/workspace/audit.log", "event 1"), "Wrote 7 bytes to /workspace/audit.log."), ok(read("/workspace/audit.log"), "event 1")],
      "I made 2 tool calls, in order:\n1. Wrote 7 bytes to /workspace/audit.log.\n2. Read /workspace/audit.log: event 1",
    ],
  ];
  for (const [behaviour, outcomes, expected] of cases) {
    it(behaviour, () => assert.equal(reportOutcomes(outcomes), expected));
  }
});

describe("each outcome in short", () => {
  const cases: [string, CallOutcome, string][] = [
    ["a command's one-line output follows it", ok(bash("echo hi"), "hi\n", 0), "Ran `echo hi` (bash). Output: hi"],
    ["a command without output says so", ok(bash("true"), "", 0), "Ran `true` (bash); it printed nothing."],
    ["python is named", ok(python("print(1)"), "1\n", 0), "Ran `print(1)` (python). Output: 1"],
    ["a command with backticks stays a valid code span", ok(bash("echo `date`"), "x", 0), "Ran `` echo `date` `` (bash). Output: x"],
    ["multi-line output is fenced", ok(bash("ls"), "a\nb\n", 0), "Ran `ls` (bash). Output:\n```\na\nb\n```"],
    ["a fence longer than the output's backticks", ok(read("/r.md"), "```js\nx\n```"), "Read /r.md:\n````\n```js\nx\n```\n````"],
    [
      "a multi-line script is described by its first line",
      ok(python("import os\nprint(os.getcwd())"), "/workspace\n", 0),
      "Ran a 2-line python script starting `import os`. Output: /workspace",
    ],
    ["an empty file", ok(read("/e.txt"), ""), "Read /e.txt: the file is empty."],
    ["write counts UTF-8 bytes", ok(write("/u.txt", "héllo")), "Wrote 6 bytes to /u.txt."],
    ["a listing", ok(list("/workspace"), "a.txt (3 bytes)\nsub/"), "Listed /workspace:\n```\na.txt (3 bytes)\nsub/\n```"],
    ["the working folder is named as such", ok(list("."), "a.txt (3 bytes)"), "Listed . (the working folder): a.txt (3 bytes)"],
    ["an empty listing", ok(list("/empty"), ""), "Listed /empty: it is empty."],
    ["a delete", ok(remove("/a.txt")), "Deleted /a.txt."],
    ["a recursive delete", ok(remove("/tmp/x", true)), "Deleted /tmp/x and everything in it."],
    [
      "a non-zero exit status is reported",
      { call: bash("ls /nope"), status: "error", output: "ls: cannot access '/nope'\n[exit status 2]", exitCode: 2 },
      "Ran `ls /nope` (bash); it failed with exit status 2. Output:\n```\nls: cannot access '/nope'\n[exit status 2]\n```",
    ],
    [
      "a command stopped without an exit status",
      { call: bash("sleep 999"), status: "error", output: "[killed: the command ran longer than 300 s]", exitCode: null },
      "Ran `sleep 999` (bash); it was stopped before it finished (no exit status). Output: [killed: the command ran longer than 300 s]",
    ],
    [
      "a failed file operation shows its error",
      { call: read("/missing"), status: "error", output: "ENOENT: no such file or directory" },
      "The read_file call on /missing failed: ENOENT: no such file or directory",
    ],
    [
      "a skipped call shows why",
      { call: bash("ls"), status: "skipped", output: "", skippedReason: "code_execution is not enabled for this interaction" },
      "The code_execution call `ls` (bash) was not run: code_execution is not enabled for this interaction.",
    ],
    [
      "a denial reason without a final stop keeps its words and gets one",
      denied(remove("/w"), "guard", "no deleting"),
      'The delete_file call on /w was denied by hook "guard": no deleting. I did not retry it.',
    ],
    [
      "a denial with no recorded details",
      { call: read("/a"), status: "denied", output: "" },
      "The read_file call on /a was denied by a hook (no reason was recorded). I did not retry it.",
    ],
  ];
  for (const [behaviour, outcome, expected] of cases) {
    it(behaviour, () => assert.equal(reportOutcomes([outcome]), expected));
  }
});

describe("several calls", () => {
  it("after a denial the agent carries on without retrying, and sums up", () => {
    const report = reportOutcomes([
      denied(read("/workspace/private/employees.json"), "privacy-gate", PRIVACY_REASON),
      ok(read("/workspace/public/summary.json"), '{"team_size": 42}'),
    ]);
    assert.equal(
      report,
      [
        "I made 2 tool calls, in order:",
        `1. The read_file call on /workspace/private/employees.json was denied by hook "privacy-gate": ${PRIVACY_REASON} I did not retry it and went on with the next step.`,
        '2. Read /workspace/public/summary.json: {"team_size": 42}',
        "",
        "In short: 1 succeeded and 1 was denied by a hook.",
      ].join("\n"),
    );
  });

  it("every denial appears with its group and reason verbatim", () => {
    const reasons = ["first\nreason, on two lines", 'second: "quoted" `code`'];
    const report = reportOutcomes([
      denied(bash("a"), "gate-one", reasons[0] ?? ""),
      ok(bash("b"), "", 0),
      denied(write("/c", "x"), "gate two", reasons[1] ?? ""),
    ]);
    assert.ok(report.includes(`by hook "gate-one": ${reasons[0]}`), report);
    assert.ok(report.includes(`by hook "gate two": ${reasons[1]}`), report);
    assert.match(report, /In short: 1 succeeded and 2 were denied by a hook\.$/);
  });

  it("the summary counts failures and calls not run", () => {
    const report = reportOutcomes([
      { call: read("/x"), status: "error", output: "ENOENT" },
      { call: bash("ls"), status: "skipped", output: "", skippedReason: "disabled" },
    ]);
    assert.match(report, /In short: 0 succeeded, 1 failed and 1 was not run\.$/);
  });

  it("no summary when everything succeeded", () => {
    assert.doesNotMatch(reportOutcomes([ok(bash("a"), "", 0), ok(bash("b"), "", 0)]), /In short/);
  });
});

describe("long results are shortened with a note", () => {
  it("keeps the first 30 and last 10 lines", () => {
    const lines = Array.from({ length: 100 }, (_, index) => `line ${index}`);
    const shown = shorten(lines.join("\n")).split("\n");
    assert.equal(shown.length, 41);
    assert.equal(shown[29], "line 29");
    assert.equal(shown[30], "[… 60 lines left out here; the tool's result step has the full text …]");
    assert.equal(shown[31], "line 90");
    assert.equal(shown[40], "line 99");
  });

  it("keeps the first 3000 and last 1000 characters of one long line", () => {
    const shown = shorten(`${"a".repeat(3000)}${"b".repeat(5000)}${"c".repeat(1000)}`);
    assert.equal(
      shown,
      `${"a".repeat(3000)}\n[… 5000 characters left out here; the tool's result step has the full text …]\n${"c".repeat(1000)}`,
    );
  });

  it("leaves short text alone", () => {
    assert.equal(shorten("a\nb"), "a\nb");
  });

  it("a long command output in the report carries the note", () => {
    const output = Array.from({ length: 60 }, (_, index) => `row ${index}`).join("\n");
    assert.match(
      reportOutcomes([ok(bash("seq 60"), output, 0)]),
      /row 29\n\[… 20 lines left out here; the tool's result step has the full text …\]\nrow 50/,
    );
  });

  it("a long one-line command is described, not repeated", () => {
    assert.match(
      reportOutcomes([ok(bash(`echo ${"x".repeat(200)}`), "", 0)]),
      /^Ran a 205-character bash script starting `echo x{54}…`; it printed nothing\.$/,
    );
  });
});

describe("steps the planner could not read are listed after the calls", () => {
  it("appends the notes", () => {
    const note = 'I took "read the docs" as a request to read a file, but I could not tell which path, so I skipped that step.';
    assert.equal(reportOutcomes([ok(list("/w"), "a")], [note]), `Listed /w: a\n\nI skipped part of your request. ${note}`);
  });

  it("no calls and no notes", () => {
    assert.equal(reportOutcomes([]), "No tool call was made.");
  });
});

describe("the answer when nothing was planned", () => {
  it("says what was understood, that no call was made, and how to get one", () => {
    const answer = noCallAnswer('I read your message ("Hello") but found no request to run a command.');
    assert.ok(answer.startsWith('I read your message ("Hello") but found no request to run a command. No tool call was made.\n\n'), answer);
    assert.ok(answer.endsWith(PHRASING_HELP));
  });

  it("the planner's understanding reads as the start of that answer", () => {
    const plan = planFromInput("Hello there");
    assert.equal(plan.kind, "none");
    if (plan.kind === "none")
      assert.match(noCallAnswer(plan.understood), /^I read your message \("Hello there"\).*No tool call was made\./);
  });

  it("the help's tool_calls example is a valid script", () => {
    assert.deepEqual(planFromInput(PHRASING_HELP), { kind: "calls", calls: [read("/workspace/notes.txt")], source: "script" });
  });

  it("the help's plain examples are understood as written", () => {
    const examples =
      "Run `ls -la` using code_execution; read `/workspace/notes.txt`; create `/workspace/a.txt` containing 'hello'; list `/workspace`; delete `/workspace/a.txt`";
    assert.ok(PHRASING_HELP.includes(examples));
    assert.deepEqual(planFromInput(examples), {
      kind: "calls",
      calls: [
        bash("ls -la"),
        read("/workspace/notes.txt"),
        write("/workspace/a.txt", "hello"),
        list("/workspace"),
        remove("/workspace/a.txt"),
      ],
      source: "phrasing",
    });
  });
});
