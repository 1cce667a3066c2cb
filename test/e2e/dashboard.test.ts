// The dashboard at /ui in a real browser: headless Chromium (Debian's, driven by playwright-core)
// against the emulator started as `npm start` starts it, with real Docker sandboxes. It signs in with
// /ui?key=, watches an interaction started with the SDK appear in the list while it runs and finish
// there without a reload, opens it and finds the call a hook denied with the hook's reason and the hook
// that failed open with its cause, and finds on the environment's page one refused and one allowed
// request in the egress log, and a file to download. Another key's session sees none of it. Traffic
// goes only to loopback (an echo server reached as allowed.example.com through EMULATOR_EGRESS_HOST_MAP;
// refused.example.com is refused by the allowlist before any lookup). A failing test keeps screenshots
// under test-results/dashboard/ and prints their paths.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { findChromium, INSTALL_CHROMIUM, runningInCi, screenshotsOnFailure } from "../support/browser.js";
import { startEchoServer, type EchoServer } from "../support/proxy-fixtures.js";

const KEY = "dashboard-owner-key";
const OTHER_KEY = "dashboard-other-key";
const AGENT = "antigravity-preview-05-2026";
const SECRET = "dashboard-secret-token-7f3a";
const DENY_REASON = "rm -rf is not allowed here";

const chromiumPath = findChromium();
// Locally a missing browser skips the test with a message; in CI it fails it.
const skip = chromiumPath === null && !runningInCi() ? `Chromium is missing: ${INSTALL_CHROMIUM}` : false;

/** One handler that always fails open (exit 3, which allows the call), one that denies `rm -rf`. */
const HOOKS = {
  "audit-log": {
    pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "echo 'audit service down' >&2; exit 3" }] }],
  },
  "no-rm": {
    pre_tool_execution: [
      {
        matcher: "code_execution",
        hooks: [
          {
            type: "command",
            command: `if grep -q 'rm -rf'; then echo '{"decision": "deny", "reason": "${DENY_REASON}"}'; else echo '{"decision": "allow"}'; fi`,
          },
        ],
      },
    ],
  },
};

/** Waits (up to a minute) for workspace/go, which the test uploads once it saw the run in the list; then one allowed and one refused request. */
const GATED_CALL =
  "for i in $(seq 600); do [ -f /workspace/go ] && break; sleep 0.1; done; " +
  "curl -s -o /dev/null -w 'allowed %{http_code}\\n' http://allowed.example.com/from-dashboard-test; " +
  "curl -s -o /dev/null -w 'refused %{http_code}\\n' http://refused.example.com/";

const script = (calls: unknown[]) => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

let emulator: EmulatorProcess;
let echo: EchoServer;
let browser: Browser;
let client: GoogleGenAI;
const contexts: BrowserContext[] = [];
const pages: Page[] = [];
/** Console errors and uncaught errors of every page (a CSP violation is a console error). */
const pageProblems: string[] = [];

before(async () => {
  if (skip) return;
  if (chromiumPath === null) throw new Error(`Chromium is missing, and the dashboard's browser test must run in CI: ${INSTALL_CHROMIUM}.`);
  echo = await startEchoServer("allowed");
  emulator = await startEmulatorProcess({
    EMULATOR_EGRESS_HOST_MAP: `allowed.example.com=127.0.0.1:${echo.port}`,
    // Two owners; any other key is refused (the sign-in form must say so).
    EMULATOR_API_KEYS: `${KEY},${OTHER_KEY}`,
  });
  client = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
});

after(async () => {
  await browser?.close();
  // Stops the emulator and removes every container it made.
  await emulator?.destroy();
  await echo?.close();
});

async function openPage(address: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  contexts.push(context);
  const page = await context.newPage();
  pages.push(page);
  page.on("console", (message) => {
    // A 404 the API answers (the other key opening the first key's interaction) is logged by the browser too.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
      pageProblems.push(`${page.url()}: console: ${message.text()}`);
  });
  page.on("pageerror", (error) => pageProblems.push(`${page.url()}: ${error.message}`));
  await page.goto(address);
  return page;
}

/** A locator's text (its textContent; "" when it has none). */
const text = async (locator: Locator) => (await locator.textContent()) ?? "";

const row = (page: Page, id: string, status?: string) =>
  page.locator(`tr[data-interaction-id="${id}"]${status ? `[data-status="${status}"]` : ""}`);

describe("the dashboard in headless Chromium", { skip }, () => {
  let interactionId: string;
  let environmentId: string;

  it("signs in with /ui?key=, and takes the key out of the address", { timeout: 60_000 }, async () => {
    await screenshotsOnFailure(
      "sign-in",
      () => pages,
      async () => {
        const page = await openPage(`${emulator.url}/ui?key=${KEY}`);
        await page.getByText("No interactions yet").waitFor();
        assert.equal(new URL(page.url()).search, "", "the key is still in the address");
        assert.equal(await page.evaluate(() => (globalThis as any).sessionStorage.getItem("interactions-emulator.api-key")), KEY);
      },
    );
  });

  it("watches a running interaction appear and finish, opens it, and finds the denied call and the failed-open hook", {
    timeout: 180_000,
  }, async () => {
    await screenshotsOnFailure(
      "interaction",
      () => pages,
      async () => {
        const page = pages[0]!;
        // Set once: still there at the end only if the page was never reloaded.
        await page.evaluate(() => {
          (globalThis as any).notReloaded = true;
        });
        const created = await client.interactions.create({
          agent: AGENT,
          input: script([
            { name: "code_execution", args: { code: GATED_CALL } },
            { name: "code_execution", args: { code: "rm -rf /workspace/scratch" } },
          ]),
          environment: {
            type: "remote",
            sources: [{ type: "inline", target: ".agents/hooks.json", content: JSON.stringify(HOOKS) }],
            network: { allowlist: [{ domain: "allowed.example.com", transform: { Authorization: `Bearer ${SECRET}` } }] },
          },
          background: true,
        });
        interactionId = created.id;
        environmentId = created.environment_id!;
        assert.equal(created.status, "in_progress");

        // It appears while it runs (the run waits for workspace/go, which only comes now).
        await row(page, interactionId, "in_progress").waitFor({ timeout: 30_000 });
        await client.environments.files.upload({ environment: environmentId, path: "workspace/go", file: Buffer.from("go\n") });
        // …and finishes in the list, with its denied call and failed-open hooks counted.
        await row(page, interactionId, "completed").waitFor({ timeout: 90_000 });
        const finished = row(page, interactionId);
        await finished.getByText("1 denied").waitFor();
        await finished.getByText("2 failed open").waitFor();
        assert.equal(await page.evaluate(() => (globalThis as any).notReloaded), true, "the list page was reloaded");

        // Open it.
        await finished.getByRole("link", { name: interactionId }).click();
        await page.waitForURL(`**/ui/interactions/${interactionId}`);
        const denied = page.locator(".entry.call.denied");
        await denied.waitFor();
        assert.equal(await denied.count(), 1);
        assert.match(await text(denied.locator("h3")), /denied by hook "no-rm"/);
        assert.match(await text(denied.locator("pre.code").first()), /rm -rf \/workspace\/scratch/);
        assert.equal(await text(denied.locator(".handler.deny .deny-reason")), `Reason: ${DENY_REASON}`);
        assert.match(await text(denied.locator(".result")), /Tool call denied by hook "no-rm": rm -rf is not allowed here/);

        // The hook that failed open, with its cause, on both calls; the first call ran.
        const failedOpen = page.locator('.handler[data-decision="fail_open"][data-group="audit-log"]');
        assert.equal(await failedOpen.count(), 2);
        const cause = failedOpen.first().locator(".fail-open-cause");
        assert.match(await text(cause), /Failed open \(nonzero_exit\): exited with status 3/);
        assert.match(await text(failedOpen.first()), /audit service down/);
        const ran = page.locator(".entry.call:not(.denied)");
        assert.ok(await ran.evaluate((element) => element.classList.contains("failed-open")));
        const output = await text(ran.locator(".result"));
        assert.match(output, /allowed 200/);
        assert.match(output, /refused 403/);
        await page.locator(".entry.answer.final").waitFor();
        await page.getByRole("heading", { name: "Usage" }).waitFor();
      },
    );
  });

  it("shows on the environment's page one refused and one allowed request, the policy redacted, and a file to download", {
    timeout: 90_000,
  }, async () => {
    await screenshotsOnFailure(
      "environment",
      () => pages,
      async () => {
        const page = pages[0]!;
        await page.locator(".facts").getByRole("link", { name: environmentId }).click();
        await page.waitForURL(`**/ui/environments/${environmentId}`);
        const allowed = page.locator('.egress tr[data-decision="allowed"]');
        const refused = page.locator('.egress tr[data-decision="refused"]');
        await allowed.first().waitFor();
        await refused.first().waitFor();
        assert.equal(await allowed.count(), 1);
        assert.equal(await refused.count(), 1);
        assert.match(await text(allowed), /GET allowed\.example\.com:80/);
        assert.match(await text(allowed), /Authorization/);
        assert.match(await text(refused), /refused\.example\.com:80/);
        assert.match(await text(refused), /not-allowlisted/);
        assert.equal(echo.requests.filter((request) => request.url === "/from-dashboard-test").length, 1);
        // The policy's header value is redacted; the secret is nowhere on the page.
        await page.getByText("Authorization: [redacted]").waitFor();
        assert.ok(!(await page.content()).includes(SECRET), "the injected header's value is on the page");
        // The file the test uploaded, downloaded through the page (with the key in a header, not the URL).
        const file = page.locator('.files tr[data-path="workspace/go"]');
        await file.waitFor();
        const [download] = await Promise.all([page.waitForEvent("download"), file.getByRole("button", { name: "Download" }).click()]);
        assert.equal(download.suggestedFilename(), "go");
        const stream = await download.createReadStream();
        let content = "";
        for await (const chunk of stream) content += String(chunk);
        assert.equal(content, "go\n");
        // Its interactions, live.
        await page.locator(`.environment tr[data-interaction-id="${interactionId}"]`).waitFor();
      },
    );
  });

  it("lists the key's credentials without their secrets", { timeout: 60_000 }, async () => {
    await screenshotsOnFailure(
      "credentials",
      () => pages,
      async () => {
        const page = pages[0]!;
        const response = await fetch(`${emulator.url}/v1beta/credentials`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-goog-api-key": KEY },
          body: JSON.stringify({ type: "bearer_token", id: "github", token: SECRET, header_name: "Authorization", prefix: "Bearer" }),
        });
        assert.equal(response.status, 200);
        await page.locator(".bar").getByRole("link", { name: "Credentials" }).click();
        const credential = page.locator('tr[data-credential-id="github"]');
        await credential.waitFor();
        assert.match(await text(credential), /bearer token.*active.*Authorization: Bearer …/);
        assert.ok(!(await page.content()).includes(SECRET), "a credential's secret is on the page");
      },
    );
  });

  it("lists the key's fault rules, with a banner on every page while one is active, gone once they are deleted", {
    timeout: 60_000,
  }, async () => {
    await screenshotsOnFailure(
      "faults",
      () => pages,
      async () => {
        const page = pages[0]!;
        const response = await fetch(`${emulator.url}/emulator/faults`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-goog-api-key": KEY },
          body: JSON.stringify({ target: { kind: "hook", command: "python3 /gate.py" }, effect: { kind: "timeout" }, times: 1 }),
        });
        assert.equal(response.status, 200);
        const { id } = (await response.json()) as { id: string };
        await page.locator(".bar").getByRole("link", { name: "Faults" }).click();
        const rule = page.locator(`tr[data-fault-id="${id}"]`);
        await rule.waitFor();
        assert.match(await text(rule), /hook command="python3 \/gate\.py".*timeout.*1 of 1.*0/);
        await page
          .locator(".faults-banner")
          .getByText(/1 fault rule is active/)
          .waitFor();
        // Every page shows it, not only the Faults page.
        await page.locator(".bar").getByRole("link", { name: "Interactions" }).click();
        await page.locator(".faults-banner").waitFor();
        await page.locator(".faults-banner").getByRole("link", { name: "See the rules" }).click();
        await page.getByRole("button", { name: "Delete all" }).click();
        await page.getByText("No fault rules").waitFor();
        await page.locator(".faults-banner").waitFor({ state: "detached" });
        const left = await fetch(`${emulator.url}/emulator/faults`, { headers: { "x-goog-api-key": KEY } });
        assert.deepEqual(await left.json(), { rules: [] });
      },
    );
  });

  it("shows another key none of the first key's interactions, listed or live, nor lets it open them", { timeout: 90_000 }, async () => {
    await screenshotsOnFailure(
      "other-owner",
      () => pages,
      async () => {
        const mine = pages[0]!;
        await mine.goto(`${emulator.url}/ui/interactions`);
        await row(mine, interactionId).waitFor();
        // This one signs in with the form: a key the emulator does not accept is refused with the API's message.
        const theirs = await openPage(`${emulator.url}/ui`);
        await theirs.getByLabel("API key").fill("not-an-accepted-key");
        await theirs.getByRole("button", { name: "Sign in" }).click();
        await theirs
          .locator(".error-box")
          .getByText(/only accepts the keys listed in EMULATOR_API_KEYS/)
          .waitFor();
        await theirs.getByLabel("API key").fill(OTHER_KEY);
        await theirs.getByRole("button", { name: "Sign in" }).click();
        await theirs.getByText("No interactions yet").waitFor();
        await theirs.locator(".badge.live").waitFor();
        // A new interaction of the first key appears live on its page, and not on the other's.
        const another = await client.interactions.create({ model: "gemini-3-flash-preview", input: "What is 2+2?" });
        await row(mine, another.id).waitFor();
        assert.equal(await theirs.locator("tr[data-interaction-id]").count(), 0);
        await theirs.getByText("No interactions yet").waitFor();
        // Opening the first key's interaction or environment by address: not found.
        await theirs.goto(`${emulator.url}/ui/interactions/${interactionId}`);
        await theirs
          .locator(".error-box")
          .getByText(/not found/i)
          .waitFor();
        await theirs.goto(`${emulator.url}/ui/environments/${environmentId}`);
        await theirs
          .locator(".error-box")
          .getByText(/not found/i)
          .first()
          .waitFor();
      },
    );
  });

  it("ran without a script error or a Content-Security-Policy violation", () => {
    assert.deepEqual(pageProblems, []);
  });
});
