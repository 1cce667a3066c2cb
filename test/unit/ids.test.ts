// IDs (server/common/ids.ts): the documented prefixes, 120 random bits in a URL- and label-safe alphabet,
// never the same bytes twice, also across the refills of the pool the bytes are drawn from.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newCallId, newEnvironmentId, newInteractionId } from "../../server/common/ids.js";

describe("IDs", () => {
  it("have their prefix and 24 (calls: 16) characters of a base32 alphabet", () => {
    assert.match(newInteractionId(), /^int_[a-z2-7]{24}$/);
    assert.match(newEnvironmentId(), /^env_[a-z2-7]{24}$/);
    assert.match(newCallId(), /^call_[a-z2-7]{16}$/);
  });

  it("are all different over many refills of the random pool, with every character in use at every position", () => {
    const ids = Array.from({ length: 20_000 }, () => newInteractionId().slice(4));
    assert.equal(new Set(ids).size, ids.length);
    // 20,000 draws of 32 characters per position: a position that missed one would be a bias, not chance.
    for (let position = 0; position < 24; position++) {
      assert.equal(new Set(ids.map((id) => id[position])).size, 32, `position ${position}`);
    }
  });
});
