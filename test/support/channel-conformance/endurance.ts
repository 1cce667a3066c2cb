// SandboxChannel conformance, part: a long run of mixed calls on one channel.

import assert from "node:assert/strict";
import { posix } from "node:path";
import { describe, it } from "node:test";
import { PROTOCOL_VERSION } from "../../../sandbox-image/executor/protocol.js";
import type { ChannelSuite } from "./context.js";

export function enduranceBehaviours(t: ChannelSuite): void {
  const { channel, freshFolder, run, readText } = t;
  describe("endurance", () => {
    it("survives a thousand sequential calls, every answer correct", { timeout: 180_000 }, async () => {
      const folder = await freshFolder("thousand");
      const pathFor = (slot: number): string => posix.join(folder, `slot-${slot}.txt`);
      for (let call = 0; call < 1_000; call++) {
        const slot = call % 5;
        switch (call % 4) {
          case 0: {
            const result = await run(["printf", "%s", `call ${call}`]);
            assert.equal(result.stdout.toString(), `call ${call}`);
            break;
          }
          case 1:
            await channel().writeFile(pathFor(slot), Buffer.from(`value ${call}`));
            break;
          case 2: {
            const result = await run(["cat", pathFor((call - 1) % 5)]);
            assert.equal(result.stdout.toString(), `value ${call - 1}`);
            break;
          }
          default: {
            const kind = (call >> 2) % 3;
            if (kind === 0) assert.equal(await readText(pathFor((call - 2) % 5)), `value ${call - 2}`);
            else if (kind === 1) assert.equal((await channel().ping()).version, PROTOCOL_VERSION);
            else assert.ok((await channel().listFiles(folder)).length <= 5);
          }
        }
      }
      assert.equal((await channel().ping()).version, PROTOCOL_VERSION);
    });
  });
}
