// The test clock (docs/clock.md), emulator-only: GET /emulator/clock says what time the caller's key
// sees; POST moves that key's clock forward ({"advance_seconds": N}) or back to real time
// ({"reset": true}) and answers once what the move made due has run (that key's trigger runs, webhook
// retries, idle sweep). [choice] A clock per key: a move never touches another key's world.

import { Router } from "express";
import { z } from "zod";
import type { TestClocks } from "../common/test-clocks.js";
import { InvalidArgumentError } from "../common/errors.js";
import { isoOf } from "../common/timestamps.js";
import { ownerOfRequest } from "./auth.js";
import { parseOrThrow } from "./zod-errors.js";

/** [choice] At most ten years per move; the total is bounded by EMULATOR_CLOCK_MAX_OFFSET_DAYS. */
const MAX_ADVANCE_SECONDS = 10 * 366 * 24 * 3600;

const moveSchema = z.strictObject({
  advance_seconds: z
    .number()
    .min(0, 'advance_seconds must be 0 or more: the clock only moves forward (POST {"reset": true} goes back to real time)')
    .max(MAX_ADVANCE_SECONDS, `advance_seconds may be at most ${MAX_ADVANCE_SECONDS} (ten years) per move`)
    .optional(),
  reset: z.literal(true, "reset can only be true (back to real time)").optional(),
});

export function clockRouter(clocks: TestClocks): Router {
  const router = Router();

  router.get("/clock", (req, res) => {
    res.status(200).json(clockView(clocks, ownerOfRequest(req)));
  });

  router.post("/clock", async (req, res) => {
    const owner = ownerOfRequest(req);
    const move = parseOrThrow(moveSchema, req.body ?? {});
    if ((move.advance_seconds === undefined) === (move.reset === undefined)) {
      throw new InvalidArgumentError('Give either {"advance_seconds": N} (move forward N seconds) or {"reset": true} (back to real time).');
    }
    await (move.reset ? clocks.reset(owner) : clocks.advance(owner, Math.round(move.advance_seconds! * 1000)));
    res.status(200).json(clockView(clocks, owner));
  });

  return router;
}

function clockView(clocks: TestClocks, owner: string): { now: string; offset_seconds: number } {
  return { now: isoOf(clocks.now(owner)), offset_seconds: clocks.offsetMs(owner) / 1000 };
}
