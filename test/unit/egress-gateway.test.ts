// The gateway's answer when the sandbox's egress port is taken (issue 29, item 13): a process of the
// sandbox's holding 127.0.0.1:3128 (possible only in sandboxes made before the keep-alive held the port)
// must give a 400 FAILED_PRECONDITION that says what to do, not a 500 the SDK retries for ever.

import assert from "node:assert/strict";
import type { Duplex } from "node:stream";
import { describe, it } from "node:test";
import { ApiError } from "../../server/common/errors.js";
import { EgressGateway } from "../../server/egress/egress-gateway.js";
import { SandboxEgressError } from "../../server/sandbox/runtime.js";
import { FakeSandboxChannel } from "../support/fake-sandbox-channel.js";

class ListenFailingChannel extends FakeSandboxChannel {
  constructor(private readonly failure: Error) {
    super();
  }
  override listenEgress(): Promise<number> {
    return Promise.reject(this.failure);
  }
  override onEgressStream(_handler: (stream: Duplex) => void): void {}
}

const gateway = new EgressGateway({ host: "127.0.0.1", port: 1, secret: "s" }, () => ({ network: "open" }) as never);

describe("EgressGateway.attach", () => {
  it("answers a taken egress port with FAILED_PRECONDITION naming the port and what to do", async () => {
    const channel = new ListenFailingChannel(new SandboxEgressError("EADDRINUSE", "listen EADDRINUSE: address already in use"));
    await assert.rejects(gateway.attach(channel, "env_taken"), (error: unknown) => {
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.httpStatus, 400);
      assert.equal(error.status, "FAILED_PRECONDITION");
      assert.match(error.message, /env_taken/);
      assert.match(error.message, /127\.0\.0\.1:3128/);
      assert.match(error.message, /Retrying will not help\. Delete the environment and create a new one/);
      return true;
    });
  });

  it("leaves every other failure as it was", async () => {
    const other = new SandboxEgressError("EACCES", "listen EACCES");
    await assert.rejects(gateway.attach(new ListenFailingChannel(other), "env_other"), (error) => error === other);
  });
});
