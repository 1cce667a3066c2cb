// Faults on demand (docs/faults.md), emulator-only like LocalStack's chaos API: a test sets a rule
// ("the gate's command times out, next 1 time") and the place it names fails that way. Per API key:
// a key sees, adds and clears only its own rules, and its rules fire only in its own work.
// POST /emulator/faults: one rule → the stored rule with its id. GET → {"rules": [...]}.
// DELETE /emulator/faults → {"cleared": N}. DELETE /emulator/faults/{id} → {}.

import { Router } from "express";
import { NotFoundError } from "../common/errors.js";
import type { FaultPlan } from "../faults/fault-plan.js";
import { faultRuleSchema } from "../faults/fault-rules.js";
import { ownerOfRequest } from "./auth.js";
import { parseOrThrow } from "./zod-errors.js";

export function faultsRouter(plan: FaultPlan): Router {
  const router = Router();

  router.post("/faults", (req, res) => {
    const rule = parseOrThrow(faultRuleSchema, req.body ?? {});
    // Past a rule's size or the key's or emulator's count of rules, add() refuses, saying which (fault-plan.ts).
    res.status(200).json(plan.add(ownerOfRequest(req), rule));
  });

  router.get("/faults", (req, res) => {
    res.status(200).json({ rules: plan.list(ownerOfRequest(req)) });
  });

  // [choice] Says how many it cleared (0 when there were none): a test's teardown can check it left nothing.
  router.delete("/faults", (req, res) => {
    res.status(200).json({ cleared: plan.clear(ownerOfRequest(req)) });
  });

  router.delete("/faults/:id", (req, res) => {
    if (!plan.remove(ownerOfRequest(req), req.params.id)) {
      throw new NotFoundError(`Fault rule ${req.params.id} not found for this API key (GET /emulator/faults lists its rules).`);
    }
    res.status(200).json({});
  });

  return router;
}
