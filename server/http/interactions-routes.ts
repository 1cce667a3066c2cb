// /{v}/interactions: create (unary, stream, background), get (JSON or a resumable event stream),
// cancel, delete (docs/api.md#interactions; shapes in docs/wire-protocol.md).

import { Router, type Request, type Response } from "express";
import { createInteractionSchema } from "../api/create-interaction.js";
import { idOf } from "../api/resource-names.js";
import { InvalidArgumentError, NotFoundError } from "../common/errors.js";
import { yieldToEventLoop } from "../common/event-loop.js";
import type { InteractionService } from "../interactions/interaction-service.js";
import { ownerOfRequest } from "./auth.js";
import { sendInteraction } from "./interaction-writer.js";
import { sendEventStream } from "./sse-writer.js";
import { parseOrThrow } from "./zod-errors.js";

export function interactionsRouter(service: InteractionService): Router {
  const router = Router();

  router.post("/interactions", async (req, res) => {
    if (req.body === undefined || typeof req.body !== "object" || req.body === null || Array.isArray(req.body)) {
      throw new InvalidArgumentError("Request body must be a JSON object (Content-Type: application/json).");
    }
    const request = parseOrThrow(createInteractionSchema, req.body);
    const run = await service.create(ownerOfRequest(req), request);
    // [choice] With store: false nobody could ever see the result once the caller goes away, so the run
    // is cancelled then; a stored run carries on (resume it with GET …?stream=true, or poll it).
    const cancelIfAbandoned = request.store === false ? () => run.stop({ status: "cancelled" }) : undefined;
    if (request.stream === true) {
      sendEventStream(res, service.follow(run), cancelIfAbandoned ? { onClientGone: cancelIfAbandoned } : {});
      return;
    }
    if (request.background === true) {
      await sendInteraction(res, { record: run.record, steps: () => run.record.steps }, { outputStepsOnly: true });
      return;
    }
    if (cancelIfAbandoned) res.on("close", () => !res.writableFinished && cancelIfAbandoned());
    const record = await run.done;
    // Rendering a large interaction takes a moment: let the requests that waited on the run's end go first.
    await yieldToEventLoop();
    await sendInteraction(res, { record, steps: () => record.steps }, { outputStepsOnly: true });
  });

  // The SDK always sends ?stream=false on get; only stream=true means an event stream.
  router.get("/interactions/:id", async (req, res) => {
    const owner = ownerOfRequest(req);
    if (streamRequested(req)) {
      sendEventStream(res, service.openEvents(interactionId(req), owner, req.query.last_event_id));
      return;
    }
    const includeInput = req.query.include_input === "true";
    await sendInteraction(res, service.read(interactionId(req), owner, { includeInput }), { includeInput });
  });

  const cancel = async (req: Request, res: Response, id: string) => {
    const record = await service.cancel(id, ownerOfRequest(req));
    await sendInteraction(res, { record, steps: () => record.steps });
  };
  // [choice] Both forms: the OpenAPI document and both SDKs send {id}/cancel, the documentation's REST
  // examples Google's custom-method form {id}:cancel (one path segment, split here). docs/fidelity.md.
  router.post("/interactions/:id/cancel", (req, res) => cancel(req, res, interactionId(req)));
  router.post("/interactions/:target", async (req, res) => {
    const [id, method, ...rest] = req.params.target.split(":");
    if (rest.length > 0 || !id || method !== "cancel") {
      throw new NotFoundError(`POST /interactions/${req.params.target}: the interaction method is {id}/cancel (or {id}:cancel).`);
    }
    await cancel(req, res, idOf("interactions", id));
  });

  router.delete("/interactions/:id", async (req, res) => {
    await service.delete(interactionId(req), ownerOfRequest(req));
    res.status(200).json({});
  });

  return router;
}

/** The path's interaction, named by its ID or as "interactions/{id}" (the SDK percent-encodes either). */
function interactionId(req: Request): string {
  return idOf("interactions", req.params.id as string);
}

function streamRequested(req: Request): boolean {
  return req.query.stream === "true";
}
