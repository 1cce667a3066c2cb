// The dashboard's Webhooks page in headless Chromium, against the emulator started as `npm start`
// starts it. A loopback receiver answers every delivery with 503; the page must show the key's webhook
// (name, URI, state, events; no secret) and each failed attempt with its 503, and, while a delivery is
// pending, pick up the next attempt (made by moving the emulator's clock) without a reload. A model
// interaction needs no sandbox, so this test starts none. Another key's session sees none of it.

import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { chromium, type Browser, type Page } from "playwright-core";
import { findChromium, INSTALL_CHROMIUM, runningInCi, screenshotsOnFailure } from "../support/browser.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const KEY = "dashboard-webhooks-key";
const OTHER_KEY = "dashboard-webhooks-other-key";

const chromiumPath = findChromium();
const skip = chromiumPath === null && !runningInCi() ? `Chromium is missing: ${INSTALL_CHROMIUM}` : false;

let emulator: EmulatorProcess;
let receiver: http.Server;
let receiverUrl: string;
let received = 0;
let browser: Browser;
const pages: Page[] = [];
const pageProblems: string[] = [];

before(async () => {
  if (skip) return;
  if (chromiumPath === null) throw new Error(`Chromium is missing, and the dashboard's browser test must run in CI: ${INSTALL_CHROMIUM}.`);
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received += 1;
      res.writeHead(503, { "content-type": "text/plain" }).end("busy");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  emulator = await startEmulatorProcess({ EMULATOR_API_KEYS: `${KEY},${OTHER_KEY}` });
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
});

after(async () => {
  await browser?.close();
  await emulator?.destroy();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
});

async function openPage(address: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  pages.push(page);
  page.on("console", (message) => {
    if (message.type() === "error") pageProblems.push(`${page.url()}: console: ${message.text()}`);
  });
  page.on("pageerror", (error) => pageProblems.push(`${page.url()}: ${error.message}`));
  await page.goto(address);
  return page;
}

async function deliveries(): Promise<any[]> {
  const response = await fetch(`${emulator.url}/emulator/webhooks/deliveries`, { headers: { "x-goog-api-key": KEY } });
  assert.equal(response.status, 200);
  return ((await response.json()) as { deliveries: any[] }).deliveries;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 200; tries += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("the dashboard's Webhooks page in headless Chromium", { skip }, () => {
  it("lists the webhook and every failed attempt with its 503, and follows a pending delivery's retry", { timeout: 120_000 }, async () => {
    await screenshotsOnFailure(
      "webhooks",
      () => pages,
      async () => {
        const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
        const webhook = await ai.webhooks.create({
          name: "ci-hook",
          uri: receiverUrl,
          subscribed_events: ["interaction.completed", "interaction.failed"],
        });
        const secret = webhook.new_signing_secret!;
        const truncated = (await ai.webhooks.get(webhook.id!)).signing_secrets?.[0]?.truncated_secret ?? "";
        // A ping is one attempt: given up at once.
        await ai.webhooks.ping(webhook.id!);
        // A completed interaction's delivery fails its first attempt and stays pending (retry in a minute).
        const interaction = await ai.interactions.create({
          model: "gemini-3-flash-preview",
          input: "say hello",
          background: true,
        } as never);
        const completed = await until("the interaction's first attempt", async () =>
          (await deliveries()).find((delivery) => delivery.event_type === "interaction.completed" && delivery.attempts.length === 1),
        );
        assert.equal(completed.status, "pending");
        assert.equal(received, 2);

        const page = await openPage(`${emulator.url}/ui/webhooks?key=${KEY}`);
        const section = page.locator(`section[data-webhook-id="${webhook.id}"][data-state="enabled"]`);
        await section.waitFor();
        const sectionText = (await section.textContent()) ?? "";
        for (const expected of ["ci-hook", receiverUrl, "interaction.completed, interaction.failed"])
          assert.ok(sectionText.includes(expected), `the webhook's section lacks ${expected}: ${sectionText}`);

        const ping = section.locator('tbody[data-event-type="webhook.ping"][data-delivery-status="given_up"]');
        await ping.locator('tr[data-attempt="1"][data-attempt-status="failed"][data-response-code="503"]').waitFor();
        const first = section.locator(`tbody[data-delivery-id="${completed.id}"][data-delivery-status="pending"]`);
        const firstAttempt = first.locator('tr[data-attempt="1"][data-attempt-status="failed"][data-response-code="503"]');
        await firstAttempt.waitFor();
        // The attempt's row says when the retry is due.
        assert.ok(completed.attempts[0].next_retry_time, "the API gives the first attempt a next retry");
        assert.notEqual((await firstAttempt.locator("td").last().textContent())?.trim() ?? "", "", "the attempt's next retry is not shown");
        assert.ok((await first.textContent())?.includes(interaction.id), "the delivery names its interaction");
        // Newest first: the interaction's delivery above the ping.
        const order = await section
          .locator("tbody[data-delivery-id]")
          .evaluateAll((bodies) => bodies.map((body) => body.getAttribute("data-event-type")));
        assert.deepEqual(order, ["interaction.completed", "webhook.ping"]);

        // The retry falls due when the clock moves a minute; the page, still open, shows it on its own.
        await page.evaluate(() => {
          (globalThis as any).notReloaded = true;
        });
        const moved = await fetch(`${emulator.url}/emulator/clock`, {
          method: "POST",
          headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
          body: JSON.stringify({ advance_seconds: 60 }),
        });
        assert.equal(moved.status, 200);
        await first.locator('tr[data-attempt="2"][data-attempt-status="failed"][data-response-code="503"]').waitFor({ timeout: 15_000 });
        assert.equal(received, 3);
        assert.equal(await page.evaluate(() => (globalThis as any).notReloaded), true, "the page was reloaded");
        const attempts = await first.locator("tr[data-attempt]").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-attempt")));
        assert.deepEqual(attempts, ["2", "1"], "attempts newest first");

        const pageText = (await page.locator("body").textContent()) ?? "";
        assert.ok(!pageText.includes(secret), "the signing secret is on the page");
        assert.ok(truncated === "" || !pageText.includes(truncated), "the truncated secret is on the page");

        // Another key sees no webhook and no delivery.
        const other = await openPage(`${emulator.url}/ui/webhooks?key=${OTHER_KEY}`);
        await other.getByText("No webhooks.").waitFor();
        assert.equal(await other.locator("tbody[data-delivery-id]").count(), 0);
        assert.deepEqual(pageProblems, []);
      },
    );
  });
});
