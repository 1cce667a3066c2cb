// Faults at egress against real Docker (issue 20's Done-when): with "egress to example.test answers 503
// with 2 s latency", a curl in the sandbox sees exactly that, and the egress log shows the injected
// mark. The emulator runs in this process so the test can hand it its FaultPlan; example.test is
// host-mapped to a loopback echo server, so nothing ever leaves the machine (not even a DNS query),
// and that server seeing no request proves the fault answered before any dial.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import Docker from "dockerode";
import { loadConfig } from "../../server/common/config.js";
import { ownerOf } from "../../server/common/ids.js";
import { startEmulator, type RunningEmulator } from "../../server/emulator.js";
import { FaultPlan } from "../../server/faults/fault-plan.js";
import { faultRuleSchema } from "../../server/faults/fault-rules.js";
import { removeInstanceObjects } from "../../server/sandbox/docker/instance-objects.js";
import { objectsOfInstance } from "../support/docker-fixture.js";
import { startEchoServer, type EchoServer } from "../support/proxy-fixtures.js";

const API_KEY = "faults-egress-e2e-key";

describe("egress faults seen from a sandbox", () => {
  let dataDir: string;
  let instance: string;
  let echo: EchoServer;
  let emulator: RunningEmulator | undefined;
  let client: GoogleGenAI;
  const plan = new FaultPlan();

  before(async () => {
    echo = await startEchoServer("example");
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-faults-egress-"));
    instance = `test-${path
      .basename(dataDir)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "")}`;
    const config = loadConfig({
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      EMULATOR_DATA_DIR: dataDir,
      EMULATOR_INSTANCE: instance,
      EMULATOR_POOL_SIZE: "0",
      EMULATOR_EGRESS_HOST_MAP: `example.test=127.0.0.1:${echo.port}`,
    });
    emulator = await startEmulator(config, { faults: plan, progress: () => undefined });
    client = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: emulator.url } });
  });

  after(async () => {
    await emulator?.close();
    await removeInstanceObjects(new Docker(), instance);
    assert.deepEqual(await objectsOfInstance(instance), { containers: 0, volumes: 0, images: 0 });
    await echo.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("a curl to example.test sees 503 after at least 2 s, the egress log carries the mark, and no request left", async () => {
    const rule = plan.add(
      ownerOf(API_KEY),
      faultRuleSchema.parse({
        target: { kind: "egress", host: "example.test" },
        effect: { kind: "http_status", status: 503, latency_ms: 2000 },
        times: 1,
      }),
    );
    assert.ok(rule);
    const interaction = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: "Run `curl -sS -o /dev/null -w '%{http_code} %{time_total}' http://example.test/` using code_execution.",
      environment: { type: "remote", network: { allowlist: [{ domain: "example.test" }] } },
    });
    const result = (interaction.steps as Array<Record<string, any>>).find((step) => step.type === "code_execution_result");
    const [status, seconds] = String(result?.result).trim().split(" ");
    assert.equal(status, "503", String(result?.result));
    assert.ok(Number(seconds) >= 2, `curl saw the answer after ${seconds} s`);
    assert.equal(echo.requests.length, 0, "the fault answered before any dial");

    const response = await fetch(`${emulator!.url}/emulator/environments/${interaction.environment_id}/egress`, {
      headers: { "x-goog-api-key": API_KEY },
    });
    const { entries } = (await response.json()) as { entries: Array<Record<string, any>> };
    const entry = entries.find((candidate) => candidate.host === "example.test");
    assert.equal(entry?.status, 503);
    assert.deepEqual(entry?.injected_fault, { rule_id: rule.id, effect: { kind: "http_status", status: 503, latency_ms: 2000 } });
    assert.equal(plan.list(ownerOf(API_KEY))[0]?.remaining, 0);
  });
});
