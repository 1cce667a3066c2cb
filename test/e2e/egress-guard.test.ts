// What a sandbox cannot reach, tried from inside real sandboxes through the real proxy: the host's
// loopback in every spelling, the emulator's own API, a private-range address (bound to a local
// interface on this machine first — a dummy one, or loopback where the kernel has no dummy driver — so
// even a failing guard sends nothing off the machine), and a Host header that names somewhere else.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { startEchoServer, type EchoServer } from "../support/proxy-fixtures.js";

const API_KEY = "egress-guard-key";
const DUMMY_INTERFACE = "emutest0";
const PRIVATE_ADDRESS = "10.213.77.1";

let emulator: EmulatorProcess;
let local: EchoServer;
let client: GoogleGenAI;
let environmentId: string;

before(async () => {
  local = await startEchoServer("local");
  emulator = await startEmulatorProcess({ EMULATOR_EGRESS_HOST_MAP: `allowed.example.com=127.0.0.1:${local.port}` });
  client = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: emulator.url } });
  const created = await client.interactions.create({
    agent: "antigravity-preview-05-2026",
    input: "Run `true`",
    environment: { type: "remote" },
  });
  environmentId = created.environment_id!;
});

after(async () => {
  await emulator?.destroy();
  await local?.close();
});

/** Runs curl through the sandbox's proxy; prints "<status> <x-proxy-error>". */
async function curlFromSandbox(url: string, extra = ""): Promise<string> {
  const interaction = await client.interactions.create({
    agent: "antigravity-preview-05-2026",
    input:
      "```tool_calls\n" +
      JSON.stringify([
        { name: "code_execution", args: { code: `curl -s -o /dev/null ${extra} -w '%{http_code} %header{x-proxy-error}' '${url}'` } },
      ]) +
      "\n```",
    environment: environmentId,
  });
  const result = (interaction.steps as Array<Record<string, any>>).find((step) => step.type === "code_execution_result")!;
  return String(result.result).trim();
}

describe("the egress guard, from inside a sandbox", () => {
  const spellings = [
    "127.0.0.1",
    "127.1",
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "localhost",
    "sub.localhost",
  ];
  for (const host of spellings) {
    it(`refuses the host's loopback spelled ${host}`, async () => {
      const answer = await curlFromSandbox(`http://${host}:${local.port}/spell`);
      assert.match(answer, /^403 blocked-address/);
      assert.equal(local.requests.filter((request) => request.url === "/spell").length, 0);
    });
  }

  it("keeps sandboxes apart: another sandbox's listener is unreachable directly and through the proxy", async () => {
    const listener = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input:
        "```tool_calls\n" +
        JSON.stringify([
          {
            name: "code_execution",
            args: {
              // Polled, not slept for: python's start alone took over a second on a loaded machine.
              code:
                "nohup python3 -m http.server 45678 --bind 127.0.0.1 >/dev/null 2>&1 & " +
                "for i in $(seq 200); do code=$(curl -s -o /dev/null -w '%{http_code}' --noproxy '*' http://127.0.0.1:45678/); " +
                '[ "$code" = 200 ] && break; sleep 0.1; done; printf %s "$code"',
            },
          },
        ]) +
        "\n```",
      environment: { type: "remote" },
    });
    const own = (listener.steps as Array<Record<string, any>>).find((step) => step.type === "code_execution_result")!;
    assert.equal(own.result, "200", "the listener answers inside its own sandbox");
    const direct = await curlFromSandbox("http://127.0.0.1:45678/", "--noproxy '*' --max-time 5");
    assert.match(direct, /^000/, "another sandbox cannot connect to it directly");
    assert.match(await curlFromSandbox("http://127.0.0.1:45678/"), /^403 blocked-address/);
  });

  it("refuses the emulator's own API", async () => {
    const apiPort = new URL(emulator.url).port;
    assert.match(await curlFromSandbox(`http://127.0.0.1:${apiPort}/health`), /^403 blocked-address/);
  });

  it("reaches the URI's host, never the one a spoofed Host header names", async () => {
    const answer = await curlFromSandbox("http://allowed.example.com/spoof", "-H 'Host: 169.254.169.254'");
    assert.match(answer, /^200/);
    const request = local.requests.find((entry) => entry.url === "/spoof");
    assert.equal(request?.headers.host, "allowed.example.com");
  });

  it("refuses a private-range address bound on this machine, and nothing reaches it", async (t) => {
    const device = bindPrivateAddress();
    if (!device) {
      t.skip("needs root and iproute2 to bind a private address to a local interface");
      return;
    }
    let hits = 0;
    const server = http.createServer((_request, response) => {
      hits += 1;
      response.end("reached");
    });
    try {
      await new Promise<void>((resolve) => server.listen(0, PRIVATE_ADDRESS, resolve));
      const privatePort = (server.address() as AddressInfo).port;
      assert.match(await curlFromSandbox(`http://${PRIVATE_ADDRESS}:${privatePort}/`), /^403 blocked-address/);
      assert.match(await curlFromSandbox(`https://${PRIVATE_ADDRESS}:${privatePort}/`), /^403 blocked-address|^000/);
      assert.equal(hits, 0);
    } finally {
      server.close();
      unbindPrivateAddress(device);
    }
  });
});

/** Binds PRIVATE_ADDRESS locally: on a dummy interface, or on loopback without the dummy driver. */
function bindPrivateAddress(): string | null {
  const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "ignore" });
  try {
    ip("link", "add", DUMMY_INTERFACE, "type", "dummy");
    ip("link", "set", DUMMY_INTERFACE, "up");
    ip("addr", "add", `${PRIVATE_ADDRESS}/32`, "dev", DUMMY_INTERFACE);
    return DUMMY_INTERFACE;
  } catch {
    try {
      ip("addr", "add", `${PRIVATE_ADDRESS}/32`, "dev", "lo");
      return "lo";
    } catch {
      return null;
    }
  }
}

function unbindPrivateAddress(device: string): void {
  if (device === "lo") execFileSync("ip", ["addr", "del", `${PRIVATE_ADDRESS}/32`, "dev", "lo"], { stdio: "ignore" });
  else execFileSync("ip", ["link", "del", device], { stdio: "ignore" });
}
