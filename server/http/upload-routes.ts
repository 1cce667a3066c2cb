// /upload/{v}/environments/{env}/files/{path}: the resumable upload protocol of the files API, and the
// single PUT with the file as its body that the REST examples send (no x-goog-upload-* headers). Mounted
// before the JSON body parser: chunk bodies are raw bytes (which the SDK labels application/json), and
// they are streamed into the sandbox rather than read whole.

import { Router, type NextFunction, type Request, type Response } from "express";
import { z } from "zod";
import { environmentIdOf } from "../api/create-environment.js";
import type { ChunkOutcome, UploadService } from "../files/upload-service.js";
import { InvalidArgumentError } from "../common/errors.js";
import { ownerOfRequest } from "./auth.js";
import { filePathParam } from "./files-routes.js";
import { parseOrThrow } from "./zod-errors.js";

const booleanFlag = z
  .enum(["true", "false", "1", "0"], { error: 'must be "true" or "false"' })
  .transform((value) => value === "true" || value === "1");

const startQuery = z.looseObject({
  // overwrite defaults to false, as the environments page documents ("overwrite protection"): an
  // existing file is a 409 ABORTED unless overwrite=true. The SDKs send overwrite only when it is given.
  overwrite: booleanFlag.default(false),
  extract: booleanFlag.default(false),
});
const chunkQuery = z.looseObject({ upload_id: z.string().min(1, "is required: use the X-Goog-Upload-URL of the start request") });

export function uploadRouter(uploads: UploadService): Router {
  const router = Router();
  const route = "/environments/:env/files{/*path}";

  router.put(route, async (req, res) => {
    const query = parseOrThrow(startQuery, req.query);
    if (req.get("x-goog-upload-protocol") === undefined && req.get("x-goog-upload-command") === undefined) {
      // The REST examples' single request: the body is the file (or the archive, with extract=true).
      const files = await uploads.single(
        ownerOfRequest(req),
        environmentIdOf(req.params.env),
        filePathParam(req),
        { declaredLength: req.get("content-length"), overwrite: query.overwrite, extract: query.extract },
        req,
      );
      res.status(200).set("X-Goog-Upload-Status", "final").json({ files });
      return;
    }
    const uploadId = await uploads.start(ownerOfRequest(req), environmentIdOf(req.params.env), filePathParam(req), {
      protocol: req.get("x-goog-upload-protocol"),
      command: req.get("x-goog-upload-command"),
      declaredLength: req.get("x-goog-upload-header-content-length"),
      overwrite: query.overwrite,
      extract: query.extract,
    });
    res
      .status(200)
      .set({ "X-Goog-Upload-URL": uploadUrl(req, uploadId), "X-Goog-Upload-Status": "active" })
      .end();
  });

  router.post(route, async (req, res) => {
    const { upload_id } = parseOrThrow(chunkQuery, req.query);
    const outcome: ChunkOutcome = await uploads.chunk(
      ownerOfRequest(req),
      upload_id,
      { command: req.get("x-goog-upload-command"), offset: req.get("x-goog-upload-offset") },
      req,
    );
    res.status(200).set({ "X-Goog-Upload-Status": outcome.status, "X-Goog-Upload-Size-Received": String(outcome.received) });
    if (outcome.status === "final") res.json({ files: outcome.files });
    else res.end();
  });

  router.all(route, (req) => {
    throw new InvalidArgumentError(
      `${req.method} is not part of the upload protocol: start with PUT, then POST the bytes to the X-Goog-Upload-URL.`,
    );
  });

  // Every answer of the protocol says where the upload stands, refusals too: both SDKs resend a chunk
  // whose answer lacks X-Goog-Upload-Status (the Python SDK three times), and only on a status that is
  // not "active" do they stop and raise the error. "active" when the upload goes on (a chunk sent at
  // the wrong offset), "final" when it is over (refused at the start, failed, finished or unknown).
  router.use(route, (error: unknown, req: Request, res: Response, next: NextFunction) => {
    const uploadId = typeof req.query.upload_id === "string" ? req.query.upload_id : null;
    const active = uploadId !== null && uploads.isActive(ownerOfRequest(req), uploadId);
    res.set("X-Goog-Upload-Status", active ? "active" : "final");
    next(error);
  });

  return router;
}

/** This very path (any base-path prefix included) with the upload's id, on the host the client reached. */
function uploadUrl(req: Request, uploadId: string): string {
  const pathOnly = req.originalUrl.split("?")[0] ?? "";
  return `${req.protocol}://${req.get("host")}${pathOnly}?upload_id=${encodeURIComponent(uploadId)}`;
}
