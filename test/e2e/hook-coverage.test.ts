// Hook coverage's Done-when (issue 20) against real sandboxes: a suite runs the seed's security gate
// (docs' hooks.json and gate.py, verbatim) against `ls` only: coverage shows the gate's deny branch
// never taken and read_file never matched, and the CLI gate exits 1 naming the rule at its line; after
// an `rm -rf` call the deny is taken and the gate passes. The dashboard's coverage page shows the file
// with the rule marked, in headless Chromium, before and after.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { chromium, type Browser, type Page } from "playwright-core";
import { findChromium, INSTALL_CHROMIUM, runningInCi, screenshotsOnFailure } from "../support/browser.js";
import { startCli } from "../support/cli-runs.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { SEED_GATE_SCRIPT } from "../support/seed-hooks-files.js";

const KEY = "hook-coverage-e2e-key";
const GATE_PATH = "/.agents/hooks.json";
/** The seed's hooks.json as its example writes it (JSON.stringify(hooksConfig, null, 2)): the handler opens on line 7. */
const hooksConfig = {
  "security-gate": {
    pre_tool_execution: [
      { matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] },
    ],
  },
};
const HANDLER_LINE = 7;

const chromiumPath = findChromium();
const noBrowser = chromiumPath === null && !runningInCi() ? `Chromium is missing: ${INSTALL_CHROMIUM}` : false;

let emulator: EmulatorProcess;
let client: GoogleGenAI;
let browser: Browser | null = null;
const pages: Page[] = [];
const pageProblems: string[] = [];

before(async () => {
  emulator = await startEmulatorProcess();
  client = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  if (chromiumPath !== null) browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
  else if (runningInCi()) throw new Error(`Chromium is missing, and the dashboard's browser check must run in CI: ${INSTALL_CHROMIUM}.`);
});
after(async () => {
  await browser?.close();
  await emulator?.destroy();
});

async function coverage(): Promise<any> {
  const response = await fetch(`${emulator.url}/emulator/hooks/coverage`, { headers: { "x-goog-api-key": KEY } });
  assert.equal(response.status, 200);
  return response.json();
}

function gateRule(report: any): any {
  const config = report.configs.find((entry: any) => entry.path === GATE_PATH);
  assert.ok(config, JSON.stringify(report));
  assert.equal(config.rules.length, 1);
  return config.rules[0];
}

async function runCode(environment: string | object, code: string) {
  const interaction = await client.interactions.create({
    agent: "antigravity-preview-05-2026",
    input: `\`\`\`tool_calls\n${JSON.stringify([{ name: "code_execution", args: { code } }])}\n\`\`\``,
    tools: [{ type: "code_execution" }],
    environment,
  } as never);
  assert.equal(interaction.status, "completed", JSON.stringify(interaction));
  return interaction;
}

async function cliGate(): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const run = startCli(["hooks", "coverage", "--emulator", emulator.url, "--key", KEY, "--fail-on-unexercised"]);
  const { status } = await run.exited;
  return { status, stdout: run.stdout(), stderr: run.stderr() };
}

/** The coverage page in Chromium: the gate's handler line, as marked. */
async function markedLine(): Promise<{ state: string | null; text: string }> {
  const context = await browser!.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  pages.push(page);
  page.on("console", (message) => {
    if (message.type() === "error") pageProblems.push(`${page.url()}: console: ${message.text()}`);
  });
  page.on("pageerror", (error) => pageProblems.push(`${page.url()}: ${error.message}`));
  await page.goto(`${emulator.url}/ui/coverage?key=${KEY}`);
  const line = page.locator(`section[data-config-path="${GATE_PATH}"] .coverage-line[data-line="${HANDLER_LINE}"]`);
  await line.waitFor();
  // The file is shown as stored: every line of it, in order.
  const shown = await page.locator(`section[data-config-path="${GATE_PATH}"] .coverage-line .line-text`).allTextContents();
  assert.deepEqual(shown, JSON.stringify(hooksConfig, null, 2).split("\n"));
  assert.equal(await page.locator('tr[data-tool="read_file"][data-unmatched="true"]').count(), 1);
  const result = { state: await line.getAttribute("data-state"), text: (await line.textContent()) ?? "" };
  await context.close();
  return result;
}

describe("hook coverage of the seed's security gate (Done-when)", () => {
  let environmentId: string;

  it("after `ls` only: the deny branch never taken, read_file never matched, the CLI gate fails naming the rule", {
    timeout: 180_000,
  }, async () => {
    const first = await runCode(
      {
        type: "remote",
        sources: [
          { type: "inline", target: ".agents/hooks.json", content: JSON.stringify(hooksConfig, null, 2) },
          { type: "inline", target: ".agents/hooks-scripts/gate.py", content: SEED_GATE_SCRIPT },
        ],
      },
      "ls",
    );
    environmentId = first.environment_id!;
    const report = await coverage();
    const gate = gateRule(report);
    assert.deepEqual(
      [gate.group, gate.event, gate.matcher, gate.handler, gate.line],
      ["security-gate", "pre_tool_execution", "code_execution", "python3 /.agents/hooks-scripts/gate.py", HANDLER_LINE],
    );
    assert.deepEqual([gate.matched, gate.allowed, gate.denied, gate.failed_open, gate.errors], [1, 1, 0, 0, 0]);
    assert.equal(gate.state, "deny_never_taken");
    assert.ok(report.unmatched_tools.includes("read_file"), JSON.stringify(report.unmatched_tools));

    const ran = await cliGate();
    assert.equal(ran.status, 1, ran.stderr);
    assert.match(
      ran.stderr,
      new RegExp(`unexercised: ${GATE_PATH.replace(/\./g, "\\.")}:${HANDLER_LINE}: security-gate .*gate\\.py: deny never taken`),
    );
  });

  it("the dashboard marks the rule: deny never taken", { skip: noBrowser, timeout: 60_000 }, async () => {
    await screenshotsOnFailure(
      "hook-coverage-before",
      () => pages,
      async () => {
        const line = await markedLine();
        assert.equal(line.state, "deny_never_taken");
        assert.match(line.text, /deny never taken/);
        assert.match(line.text, /matched 1/);
      },
    );
  });

  it("after an `rm -rf` call: the deny is taken and the CLI gate passes", { timeout: 120_000 }, async () => {
    const denied = await runCode(environmentId, "rm -rf /tmp/forbidden");
    const result = (denied.steps as Array<Record<string, any>>).find((step) => step.type === "code_execution_result")!;
    assert.equal(result.is_error, true);
    const gate = gateRule(await coverage());
    assert.deepEqual([gate.matched, gate.allowed, gate.denied, gate.state], [2, 1, 1, "exercised"]);
    const ran = await cliGate();
    assert.equal(ran.status, 0, ran.stderr);
    assert.match(ran.stdout, /1 of 1 rules exercised/);
  });

  it("the dashboard marks the rule exercised, and the page shows no errors", { skip: noBrowser, timeout: 60_000 }, async () => {
    await screenshotsOnFailure(
      "hook-coverage-after",
      () => pages,
      async () => {
        const line = await markedLine();
        assert.equal(line.state, "exercised");
        assert.match(line.text, /allowed 1, denied 1/);
        assert.deepEqual(pageProblems, []);
      },
    );
  });
});
