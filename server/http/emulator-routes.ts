// The emulator's own debug API, outside /{version}/ so it can never collide with the real protocol.
// GET /emulator/interactions/{id}/hooks: what the hooks did around each tool call of an interaction.

import { Router } from "express";
import type { InteractionService } from "../interactions/interaction-service.js";
import { ownerOfRequest } from "./auth.js";

export function emulatorRouter(service: InteractionService): Router {
  const router = Router();
  router.get("/interactions/:id/hooks", (req, res) => {
    const record = service.get(req.params.id, ownerOfRequest(req));
    res.status(200).json({
      interaction_id: record.id,
      environment_id: record.environmentId,
      tool_calls: record.hookTraces,
    });
  });
  return router;
}
