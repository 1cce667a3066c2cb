import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_PHRASED_CHARS } from "../../server/planners/scripted/phrasing-reader.js";
import { planFromInput } from "../../server/planners/scripted/scripted-planner.js";
import type { ToolCall } from "../../server/tools/tool-call.js";
import { bash, list, python, read, remove, write } from "../support/tool-calls.js";

const script = (json: string): string => `\`\`\`tool_calls\n${json}\n\`\`\``;

function assertPhrasedCalls(input: string, expected: ToolCall[]): void {
  assert.deepEqual(planFromInput(input), { kind: "calls", calls: expected, source: "phrasing" });
}

describe("the seed documentation's sentences plan the calls the seed describes", () => {
  const cases: [string, ToolCall[]][] = [
    ["Run `rm -rf /tmp/forbidden` using code_execution.", [bash("rm -rf /tmp/forbidden")]],
    [
      "Use your filesystem tool to read `/workspace/private/employees.json` and summarize the employee details.",
      [read("/workspace/private/employees.json")],
    ],
    [
      "Use your filesystem tool to read /workspace/private/employees.json and summarize the employee details.",
      [read("/workspace/private/employees.json")],
    ],
    [
      "Understood. Please read the approved `/workspace/public/summary.json` file instead and provide the summary.",
      [read("/workspace/public/summary.json")],
    ],
    [
      "Understood. Please read the approved /workspace/public/summary.json file instead and provide the summary.",
      [read("/workspace/public/summary.json")],
    ],
    [
      "Use your filesystem tool to create `/workspace/audit.log` containing 'event 1', then immediately read it back using your filesystem read tool.",
      [write("/workspace/audit.log", "event 1"), read("/workspace/audit.log")],
    ],
    [
      "Use your filesystem tool to create /workspace/audit.log containing event 1, then immediately read it back using your filesystem read tool.",
      [write("/workspace/audit.log", "event 1"), read("/workspace/audit.log")],
    ],
    [
      "Use your filesystem tool to create `/workspace/a.txt` containing 'hi', then run `cat /workspace/a.txt` using code_execution.",
      [write("/workspace/a.txt", "hi"), bash("cat /workspace/a.txt")],
    ],
  ];
  for (const [input, expected] of cases) {
    it(input, () => assertPhrasedCalls(input, expected));
  }
});

describe("plain phrasings", () => {
  const cases: [string, string, ToolCall[]][] = [
    // code_execution
    ["run with a backticked command", "Run `ls -la`", [bash("ls -la")]],
    ["execute is a synonym of run", "Execute `echo hi` please.", [bash("echo hi")]],
    [
      "a command in backticks keeps its exact text",
      "run `rm -rf /tmp/forbidden  # twice spaced`",
      [bash("rm -rf /tmp/forbidden  # twice spaced")],
    ],
    ["python3 inside the backticks is a shell command", "run `python3 x.py`", [bash("python3 x.py")]],
    ["the word python before the code selects python", "run python `print(1)`", [python("print(1)")]],
    ["'in python' after the code selects python", "Run `print(1)` in python", [python("print(1)")]],
    ["a shell launcher stays bash even when python is named", "run the python script `python3 app.py`", [bash("python3 app.py")]],
    ["a python fenced block is python", "Run this:\n```python\nprint('a')\nprint(\"b\")\n```", [python("print('a')\nprint(\"b\")")]],
    ["a sh fenced block is bash", "Run this:\n```sh\necho one; echo two\n```", [bash("echo one; echo two")]],
    ["a bash fenced block is bash", "Execute\n```bash\nls\n```", [bash("ls")]],
    ["an unmarked fence after 'python' is python", "Execute the following python:\n```\nprint(1)\n```", [python("print(1)")]],
    ["a lone bash block is a request to run it", "```bash\nls -la\n```", [bash("ls -la")]],
    ["a quoted command is accepted too", "run 'echo quoted'", [bash("echo quoted")]],
    ["a tool name in backticks is not a command", "Run `ls` using `code_execution`", [bash("ls")]],
    ["an introductory clause before run", "Using code_execution, run `ls /workspace`.", [bash("ls /workspace")]],
    // read_file
    ["read with a backticked path", "read `/workspace/a.txt`", [read("/workspace/a.txt")]],
    ["read with a double-quoted path", 'read "/workspace/a.txt"', [read("/workspace/a.txt")]],
    ["read with a single-quoted path", "read '/workspace/a.txt'", [read("/workspace/a.txt")]],
    ["read with typographic quotes", "read \u201C/workspace/q.txt\u201D", [read("/workspace/q.txt")]],
    ["read a bare ./ path at a sentence end", "Read the file at ./data/x.csv.", [read("./data/x.csv")]],
    ["cat is a synonym of read", "cat `/etc/hostname`", [read("/etc/hostname")]],
    ["a relative path in backticks", "read `notes.txt`", [read("notes.txt")]],
    ["a tool name in backticks is not a path", "Use `read_file` to read `/workspace/a.txt`", [read("/workspace/a.txt")]],
    // write_file
    ["create containing a quoted text", "create `/workspace/a.txt` containing 'hello'", [write("/workspace/a.txt", "hello")]],
    ["write containing double quotes", 'write /workspace/a.txt containing "x y"', [write("/workspace/a.txt", "x y")]],
    ["with content and a bare text", "create `/workspace/c.txt` with content hello there", [write("/workspace/c.txt", "hello there")]],
    [
      "with the content and a quoted text",
      "create `/workspace/c.txt` with the content: 'x; then y'",
      [write("/workspace/c.txt", "x; then y")],
    ],
    ["a plain with before a quote", "create `/workspace/c.txt` with 'hi'", [write("/workspace/c.txt", "hi")]],
    ["content from a fenced block", "create `/w/a.py` containing\n```python\nprint(1)\n```", [write("/w/a.py", "print(1)")]],
    ["content first, then the file", "write 'hello world' to `/workspace/h.txt`", [write("/workspace/h.txt", "hello world")]],
    ["bare content first, then the file", "write hello world to /workspace/h.txt", [write("/workspace/h.txt", "hello world")]],
    ["save is a synonym of write", "save 'v1' into /workspace/version.txt", [write("/workspace/version.txt", "v1")]],
    // The official CLI's end-to-end scripts (gemini-api-cli tests/e2e/cuj_33.sh, cuj_36.sh) name the file
    // relative to the working folder; this wrote an empty file named after the content before.
    ["content first, then a relative file name", "Write 'hello world' to test.txt", [write("test.txt", "hello world")]],
    ["content first, then a relative path", "Write 'hello' to tmp/test.txt", [write("tmp/test.txt", "hello")]],
    ["a relative file name to read", "Read tmp/test.txt and tell me what it says", [read("tmp/test.txt")]],
    ["a relative file name to delete", "delete notes.txt", [remove("notes.txt")]],
    ["a relative folder to list", "list tmp/sub", [list("tmp/sub")]],
    ["a relative target, then another step", "write 'a' to notes.txt, then read it back", [write("notes.txt", "a"), read("notes.txt")]],
    ["create with no content makes an empty file", "create `/workspace/e.txt`", [write("/workspace/e.txt", "")]],
    ["an empty quoted content", "create /workspace/e.txt containing ''", [write("/workspace/e.txt", "")]],
    [
      "a trailing tool phrase is not content",
      "create `/workspace/c.txt` with content hello there using your filesystem write tool.",
      [write("/workspace/c.txt", "hello there")],
    ],
    [
      "and inside a bare content stays",
      "create /workspace/a.txt containing salt and pepper",
      [write("/workspace/a.txt", "salt and pepper")],
    ],
    // list_files
    ["list the files in a path", "list the files in `/workspace/public`", [list("/workspace/public")]],
    ["list a bare path", "list /workspace", [list("/workspace")]],
    ["list with no path lists the working folder", "List files.", [list(".")]],
    ["a verb at a sentence end", "Create /w/a.txt containing 'x'. Then list.", [write("/w/a.txt", "x"), list(".")]],
    // delete_file
    ["delete a file", "delete `/workspace/a.txt`", [remove("/workspace/a.txt")]],
    ["remove is a synonym of delete", "remove /workspace/a.txt", [remove("/workspace/a.txt")]],
    ["recursively asks for a recursive delete", "remove /workspace/tmp recursively", [remove("/workspace/tmp", true)]],
    ["a folder asks for a recursive delete", "delete the folder `/workspace/tmp`", [remove("/workspace/tmp", true)]],
    ["a folder name inside a path does not", "delete /workspace/folder/a.txt", [remove("/workspace/folder/a.txt")]],
    // several steps
    ["steps joined by then", "Run `ls` then read /workspace/a.txt", [bash("ls"), read("/workspace/a.txt")]],
    ["steps joined by and then", "read /a and then delete /b", [read("/a"), remove("/b")]],
    ["steps joined by a comma and then", "read /a, and then list /b", [read("/a"), list("/b")]],
    [
      "steps joined by semicolons",
      "run python `print(1)`; list files; delete the folder /workspace/tmp",
      [python("print(1)"), list("."), remove("/workspace/tmp", true)],
    ],
    ["steps in sentences", "Read /workspace/a.txt. Then delete it.", [read("/workspace/a.txt"), remove("/workspace/a.txt")]],
    [
      "steps on numbered lines",
      "1. create `/workspace/a.txt` containing 'x'\n2. read it back\n3. delete it",
      [write("/workspace/a.txt", "x"), read("/workspace/a.txt"), remove("/workspace/a.txt")],
    ],
    ["and before a verb starts a step", "run `ls` and read /etc/hostname", [bash("ls"), read("/etc/hostname")]],
    [
      "and after bare content starts a step when a verb follows",
      "create /workspace/a.txt containing salt and pepper and read it back",
      [write("/workspace/a.txt", "salt and pepper"), read("/workspace/a.txt")],
    ],
    ["a span after then continues the previous verb", "Run `ls` then `pwd`", [bash("ls"), bash("pwd")]],
    // references
    [
      "read it back refers to the last path",
      "create /workspace/x.txt containing 'a', then read it back",
      [write("/workspace/x.txt", "a"), read("/workspace/x.txt")],
    ],
    [
      "cat it refers to the last path",
      "create /workspace/x.txt containing 'a', then cat it",
      [write("/workspace/x.txt", "a"), read("/workspace/x.txt")],
    ],
    ["read the file refers to the last path", "write 'a' to /w/x.txt; read the file", [write("/w/x.txt", "a"), read("/w/x.txt")]],
    ["delete it refers to the last path", "read /a and delete it", [read("/a"), remove("/a")]],
    // negation
    ["a negated verb is no request", "Don't read anything, just list `/workspace`.", [list("/workspace")]],
  ];
  for (const [behaviour, input, expected] of cases) {
    it(behaviour, () => assertPhrasedCalls(input, expected));
  }
});

describe("edge cases of plain phrasings", () => {
  const cases: [string, string, ToolCall[]][] = [
    ["a path with spaces in backticks", "read `/workspace/my notes.txt`", [read("/workspace/my notes.txt")]],
    ["Windows line endings", "Run `ls`\r\nthen read /workspace/a.txt\r\n", [bash("ls"), read("/workspace/a.txt")]],
    [
      "then and ; inside a backticked command do not split it",
      "Run `echo a then b; echo c` then read /workspace/a.txt",
      [bash("echo a then b; echo c"), read("/workspace/a.txt")],
    ],
    ["then inside quoted content does not split it", "create /a containing 'first, then second'", [write("/a", "first, then second")]],
    ["then and run inside a path are not words", "read /workspace/run/then/x", [read("/workspace/run/then/x")]],
    [
      "several paths joined by and",
      "read '/workspace/a.txt' and \"/workspace/b.txt\"",
      [read("/workspace/a.txt"), read("/workspace/b.txt")],
    ],
    ["several paths joined by commas", "read `/a`, `/b` and `/c`", [read("/a"), read("/b"), read("/c")]],
    ["several commands joined by and", "Run `ls` and `pwd`", [bash("ls"), bash("pwd")]],
    ["an apostrophe is not a quote", "Let's read the users' file `/workspace/u.txt`", [read("/workspace/u.txt")]],
    ["a URL is not a bare path", "read `/a` from https://example.com/docs", [read("/a")]],
    [
      "typographic single quotes around content",
      "Create `/workspace/a.txt` containing \u2018curly\u2019, then read it.",
      [write("/workspace/a.txt", "curly"), read("/workspace/a.txt")],
    ],
    ["a double-backtick span keeps inner backticks", "run `` echo `date` ``", [bash("echo `date`")]],
  ];
  for (const [behaviour, input, expected] of cases) {
    it(behaviour, () => assertPhrasedCalls(input, expected));
  }
});

describe("steps that cannot be read are skipped and explained", () => {
  it("keeps the readable steps and notes the others", () => {
    const plan = planFromInput("Run the tests, then read `/workspace/a.txt`");
    assert.equal(plan.kind, "calls");
    if (plan.kind !== "calls") return;
    assert.deepEqual(plan.calls, [read("/workspace/a.txt")]);
    assert.equal(plan.notes?.length, 1);
    assert.match(plan.notes?.[0] ?? "", /"Run the tests" as a request to run code, but I found no command in backticks/);
  });

  it("lists at most ten skipped steps", () => {
    const plan = planFromInput(Array.from({ length: 13 }, (_, index) => `run step ${index}`).join("\n"));
    assert.equal(plan.kind, "none");
    if (plan.kind !== "none") return;
    assert.equal(plan.understood.match(/so I skipped that step\./g)?.length, 10);
    assert.ok(plan.understood.endsWith("I also skipped 3 more steps that I could not read."));
  });

  const cases: [string, string, RegExp][] = [
    [
      "a run without a command",
      "Please run the tests",
      /"Please run the tests" as a request to run code, but I found no command in backticks \(write it like: Run `ls -la`/,
    ],
    ["a read without a path", "read the docs", /as a request to read a file, but I could not tell which path \(put the path in backticks/],
    ["a reference with no earlier path", "read it back", /"it" does not refer to any path named before it/],
    ["the file with no earlier path", "save the file", /"the file" does not refer to any path named before it/],
    ["a folder to create", "create a folder /workspace/out", /no emulated tool creates folders/],
    // Not an empty file named "hello" (the quoted content is no path).
    [
      "quoted content to no readable file",
      "write 'hello' to the log",
      /as a request to write a file, but I could not tell which file to write/,
    ],
    ["a fenced block in another language", "Run:\n```ruby\nputs 1\n```", /marked "ruby", and code_execution runs only bash or python/],
    ["an empty command", "run ` `", /the command in backticks is empty/],
  ];
  for (const [behaviour, input, expected] of cases) {
    it(behaviour, () => {
      const plan = planFromInput(input);
      assert.equal(plan.kind, "none");
      if (plan.kind === "none") assert.match(plan.understood, expected);
    });
  }
});

describe("input without a tool request plans nothing", () => {
  const cases: [string, string, RegExp][] = [
    [
      "a greeting",
      "Hello there",
      /^I read your message \("Hello there"\) but found no request to run a command or to read, write, list or delete a file in it\.$/,
    ],
    ["an acknowledgement", "Understood, thanks.", /found no request/],
    ["an empty message", "", /^Your message was empty/],
    ["nouns that look like verbs", "Show me a list of your read tools.", /found no request/],
    ["a long message is quoted shortened", "x".repeat(200), /\("x{79}…"\)/],
    ["a bare fence in no code language", "```\nsome text\n```", /found no request/],
  ];
  for (const [behaviour, input, expected] of cases) {
    it(behaviour, () => {
      const plan = planFromInput(input);
      assert.equal(plan.kind, "none");
      if (plan.kind === "none") assert.match(plan.understood, expected);
    });
  }
});

describe("an explicit tool_calls script runs exactly its calls", () => {
  const cases: [string, string, ToolCall[]][] = [
    [
      "the spec's example",
      'Do this:\n```tool_calls\n[{"name":"write_file","args":{"path":"/workspace/a.txt","content":"x"}},\n {"name":"code_execution","args":{"code":"cat /workspace/a.txt","language":"bash"}}]\n```',
      [write("/workspace/a.txt", "x"), bash("cat /workspace/a.txt")],
    ],
    ["python code", script('[{"name":"code_execution","args":{"code":"print(1)","language":"python"}}]'), [python("print(1)")]],
    ["language defaults to bash", script('[{"name":"code_execution","args":{"code":"ls"}}]'), [bash("ls")]],
    [
      "multi-line code with backticks and quotes, even ``` inside a string",
      script(JSON.stringify([{ name: "code_execution", args: { code: "echo \"`date`\"\nprintf '%s' \"```\"\necho 'then; done'" } }])),
      [bash("echo \"`date`\"\nprintf '%s' \"```\"\necho 'then; done'")],
    ],
    ["list_files without args lists the working folder", script('[{"name":"list_files"}]'), [list(".")]],
    ["delete_file keeps recursive", script('[{"name":"delete_file","args":{"path":"/w/t","recursive":true}}]'), [remove("/w/t", true)]],
    [
      "every tool in order",
      script(
        JSON.stringify([
          { name: "write_file", args: { path: "/a", content: "" } },
          { name: "read_file", args: { path: "/a" } },
          { name: "list_files", args: { path: "/" } },
          { name: "delete_file", args: { path: "/a" } },
        ]),
      ),
      [write("/a", ""), read("/a"), list("/"), remove("/a")],
    ],
    ["Windows line endings", '```tool_calls\r\n[{"name":"list_files"}]\r\n```\r\n', [list(".")]],
    [
      "phrasings around the block are ignored",
      `Run \`ls\` then read /a.\n${script('[{"name":"read_file","args":{"path":"/b"}}]')}`,
      [read("/b")],
    ],
  ];
  for (const [behaviour, input, expected] of cases) {
    it(behaviour, () => assert.deepEqual(planFromInput(input), { kind: "calls", calls: expected, source: "script" }));
  }
});

describe("a malformed tool_calls script is invalid with a message that says what to fix", () => {
  const cases: [string, string, string][] = [
    [
      "an unknown tool names the item and the tools",
      script('[{"name":"read_file","args":{"path":"/a"}},{"name":"rm_file","args":{"path":"/a"}}]'),
      'tool_calls item 2: unknown tool "rm_file"; emulated tools are code_execution, read_file, write_file, list_files, delete_file',
    ],
    ["not JSON", script("not json"), "the tool_calls block is not valid JSON ("],
    [
      "not an array",
      script('"read_file"'),
      'the tool_calls block must hold a JSON array of calls like [{"name": "read_file", "args": {"path": "/workspace/a.txt"}}], got a string',
    ],
    [
      "a single call not in an array",
      script('{"name":"list_files"}'),
      "the tool_calls block must hold a JSON array; wrap the single call in [ ]",
    ],
    ["an empty array", script("[]"), "the tool_calls array is empty; add at least one call like"],
    ["an empty block", "```tool_calls\n\n```", "the tool_calls block is empty"],
    ["an item that is not an object", script("[1]"), "tool_calls item 1: expected an object like"],
    ["a missing name", script('[{"args":{"path":"/a"}}]'), 'tool_calls item 1: missing "name"; emulated tools are'],
    ["a name that is not a string", script('[{"name":3}]'), "tool_calls item 1: unknown tool a number"],
    [
      "arguments instead of args",
      script('[{"name":"read_file","arguments":{"path":"/a"}}]'),
      'tool_calls item 1: unknown key "arguments"; write the arguments under "args"',
    ],
    [
      "an unknown item key",
      script('[{"name":"read_file","args":{"path":"/a"},"id":"x"}]'),
      'tool_calls item 1: unknown key "id"; an item has only "name" and "args"',
    ],
    [
      "args that are not an object",
      script('[{"name":"read_file","args":["/x"]}]'),
      'tool_calls item 1: "args" of read_file must be an object, got an array',
    ],
    [
      "a missing argument",
      script('[{"name":"read_file","args":{}}]'),
      'tool_calls item 1: read_file argument "path" is missing (expected string',
    ],
    [
      "a wrong argument type",
      script('[{"name":"code_execution","args":{"code":1}}]'),
      'tool_calls item 1: code_execution argument "code" must be a string, got a number',
    ],
    [
      "an unsupported language",
      script('[{"name":"code_execution","args":{"code":"puts 1","language":"ruby"}}]'),
      'code_execution argument "language" must be one of "bash", "python", got "ruby"',
    ],
    [
      "a misspelt argument",
      script('[{"name":"write_file","args":{"path":"/a","contents":"x"}}]'),
      'write_file has no argument "contents"; its arguments are path, content',
    ],
    [
      "an empty path",
      script('[{"name":"read_file","args":{"path":""}}]'),
      'tool_calls item 1: read_file argument "path" must not be empty',
    ],
    [
      "a non-boolean recursive",
      script('[{"name":"delete_file","args":{"path":"/x","recursive":"yes"}}]'),
      'delete_file argument "recursive" must be a boolean, got a string',
    ],
    [
      "an unclosed block",
      '```tool_calls\n[{"name":"list_files"}]',
      "the tool_calls block is not closed; end it with ``` on a line by itself",
    ],
    ["a one-line block", '```tool_calls [{"name":"list_files"}]```', "the tool_calls block must be fenced on lines of its own"],
    [
      "a misspelt block marker",
      script('[{"name":"list_files"}]').replace("tool_calls", "tool_call"),
      "found a ```tool_call block; the emulated agent runs only blocks marked exactly ```tool_calls",
    ],
    [
      "two blocks",
      `${script('[{"name":"list_files"}]')}\n${script('[{"name":"list_files"}]')}`,
      "found 2 tool_calls blocks; put all the calls in one block's JSON array",
    ],
  ];
  for (const [behaviour, input, expected] of cases) {
    it(behaviour, () => {
      const plan = planFromInput(input);
      assert.equal(plan.kind, "invalid");
      if (plan.kind === "invalid") assert.ok(plan.message.includes(expected), `message was: ${plan.message}`);
    });
  }

  it("reports every bad item, one per line", () => {
    const plan = planFromInput(script('[{"name":"rm_file"},{"name":"read_file","args":{"path":"/a"}},{"name":"read_file"}]'));
    assert.equal(plan.kind, "invalid");
    if (plan.kind !== "invalid") return;
    assert.deepEqual(
      plan.message.split("\n").map((line) => line.split(":")[0]),
      ["tool_calls item 1", "tool_calls item 3"],
    );
  });
});

describe("a long input (issue 9, defect 8)", () => {
  const filler = `${"Some pasted notes, nothing to run here. ".repeat(40)}\n`;
  const longText = filler.repeat(Math.ceil((MAX_PHRASED_CHARS * 2) / filler.length));

  it("has plain requests read in its first 64 KiB, whole lines only, and says the rest was not read", () => {
    const plan = planFromInput(`read \`/workspace/a.txt\`\n${longText}then delete \`/workspace/a.txt\``);
    assert.equal(plan.kind, "calls");
    assert.deepEqual(plan.kind === "calls" && plan.calls, [read("/workspace/a.txt")]);
    assert.match(
      (plan.kind === "calls" && plan.notes?.join(" ")) || "",
      /only in its first 64 KiB \(whole lines\), so the rest was not read/,
    );
  });

  it("never reads half a line cut at the limit", () => {
    const cutLine = `${"x".repeat(MAX_PHRASED_CHARS - 10)} read /workspace/a-very-long-file-name.txt`;
    const plan = planFromInput(cutLine);
    assert.equal(plan.kind, "none");
    assert.match(plan.kind === "none" ? plan.understood : "", /was not read/);
  });

  it("is read in linear time: 16 MiB of prose takes well under a second", () => {
    const text = "echo hi then ls; read it. ".repeat((16 * 1024 * 1024) / 26);
    const started = performance.now();
    planFromInput(text);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 1500, `took ${Math.round(elapsed)} ms`);
  });

  it("as a tool_calls script is read whole, however long", () => {
    const content = "y".repeat(4 * 1024 * 1024);
    const plan = planFromInput(script(JSON.stringify([{ name: "write_file", args: { path: "/workspace/big.txt", content } }])));
    assert.deepEqual(plan, { kind: "calls", calls: [write("/workspace/big.txt", content)], source: "script" });
  });
});
