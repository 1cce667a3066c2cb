// The emulator's test clock (docs/clock.md), emulator-only: GET /emulator/clock says what time the
// emulator thinks it is; POST moves it forward ({"advance_seconds": N}) or back to real time
// ({"reset": true}) and answers once what the move made due has run (trigger runs, webhook retries,
// the idle sweep). [choice] One clock for the whole emulator, so any API key may move it.

import { Router } from "express";
import { z } from "zod";
import type { EmulatorClock } from "../common/clock.js";
import type { Scheduler } from "../common/scheduler.js";
import { InvalidArgumentError } from "../common/errors.js";
import { parseOrThrow } from "./zod-errors.js";

/** [choice] At most ten years per move: a bound no test needs to reach, and far from overflowing a Date. */
const MAX_ADVANCE_SECONDS = 10 * 366 * 24 * 3600;

const moveSchema = z.strictObject({
  advance_seconds: z
    .number()
    .min(0, 'advance_seconds must be 0 or more: the clock only moves forward (POST {"reset": true} goes back to real time)')
    .max(MAX_ADVANCE_SECONDS, `advance_seconds may be at most ${MAX_ADVANCE_SECONDS} (ten years) per move`)
    .optional(),
  reset: z.literal(true, "reset can only be true (back to real time)").optional(),
});

export function clockRouter(clock: EmulatorClock, scheduler: Scheduler): Router {
  const router = Router();

  router.get("/clock", (_req, res) => {
    res.status(200).json(clockView(clock));
  });

  router.post("/clock", async (req, res) => {
    const move = parseOrThrow(moveSchema, req.body ?? {});
    if ((move.advance_seconds === undefined) === (move.reset === undefined)) {
      throw new InvalidArgumentError('Give either {"advance_seconds": N} (move forward N seconds) or {"reset": true} (back to real time).');
    }
    if (move.reset) clock.reset();
    else clock.advance(Math.round(move.advance_seconds! * 1000));
    await scheduler.runDue();
    res.status(200).json(clockView(clock));
  });

  return router;
}

function clockView(clock: EmulatorClock): { now: string; offset_seconds: number } {
  return { now: new Date(clock.now()).toISOString(), offset_seconds: clock.offset / 1000 };
}
