import { Router } from "express";
import { createInteractionSchema } from "../api/create-interaction.js";
import { InvalidArgumentError } from "../errors.js";
import type { InteractionService } from "../interactions/interaction-service.js";
import { ownerOfRequest } from "./auth.js";
import { renderInteraction } from "./render.js";
import { parseOrThrow } from "./zod-errors.js";

export function interactionsRouter(service: InteractionService): Router {
  const router = Router();

  router.post("/interactions", async (req, res) => {
    if (req.body === undefined || typeof req.body !== "object" || req.body === null || Array.isArray(req.body)) {
      throw new InvalidArgumentError("Request body must be a JSON object (Content-Type: application/json).");
    }
    const request = parseOrThrow(createInteractionSchema, req.body);
    const record = await service.create(ownerOfRequest(req), request);
    res.status(200).json(renderInteraction(record));
  });

  // `?stream=false` is always sent by the SDK on get; only stream=true would mean SSE.
  router.get("/interactions/:id", (req, res) => {
    if (req.query.stream === "true") {
      throw new InvalidArgumentError("stream=true is not supported by this emulator version yet; leave it out.");
    }
    const record = service.get(req.params.id, ownerOfRequest(req));
    res.status(200).json(renderInteraction(record));
  });

  return router;
}
