import { Router } from "express";
import { z } from "zod";
import { createCredentialSchema, updateCredentialSchema } from "../credentials/credential-schemas.js";
import { renderCredential, type CredentialService } from "../credentials/credential-service.js";
import { ownerOfRequest } from "./auth.js";
import { sendJson } from "./json-stream-writer.js";
import { parseOrThrow } from "./zod-errors.js";

const listQuery = z.looseObject({
  page_size: z.coerce.number().int().min(1).max(1000).default(50),
  page_token: z.string().optional(),
});
const updateQuery = z.looseObject({ update_mask: z.string().optional() });

export function credentialsRouter(service: CredentialService, options: { pageBytes: number }): Router {
  const router = Router();

  router.post("/credentials", (req, res) => {
    const record = service.create(ownerOfRequest(req), parseOrThrow(createCredentialSchema, req.body));
    res.status(200).json(renderCredential(record));
  });

  // Pages bounded in bytes (EMULATOR_LIST_PAGE_BYTES), written piece by piece: never one string.
  router.get("/credentials", async (req, res) => {
    const query = parseOrThrow(listQuery, req.query);
    const page = service.list(ownerOfRequest(req), query.page_size, query.page_token, options.pageBytes);
    await sendJson(res, { credentials: page.credentials.map(renderCredential), next_page_token: page.nextPageToken });
  });

  router.get("/credentials/:id", (req, res) => {
    res.status(200).json(renderCredential(service.get(ownerOfRequest(req), req.params.id)));
  });

  router.patch("/credentials/:id", (req, res) => {
    const { update_mask } = parseOrThrow(updateQuery, req.query);
    const record = service.update(ownerOfRequest(req), req.params.id, parseOrThrow(updateCredentialSchema, req.body ?? {}), update_mask);
    res.status(200).json(renderCredential(record));
  });

  router.delete("/credentials/:id", (req, res) => {
    service.delete(ownerOfRequest(req), req.params.id);
    res.status(200).json({});
  });

  return router;
}
