// GET /{v}/environments/{env}/files/{path}: the listing (GetEnvironmentFilesResponse), or with
// ?alt=media the file's raw bytes, streamed (a folder's, the root's too: a tar archive, with
// ?recursive=true of everything below it). `path` may contain "/" and may be empty (the root).
// GET /{v}/files/environment-{env}:download?alt=media: the deprecated snapshot route (the official CLI's),
// the workspace as a tar archive (/workspace's with recursive=true, the CLI reads it so).

import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { environmentIdOf } from "../api/create-environment.js";
import type { DownloadOptions, DownloadSink, FileService } from "../files/file-service.js";
import { InvalidArgumentError, NotFoundError } from "../common/errors.js";
import { ownerOfRequest } from "./auth.js";
import { parseOrThrow } from "./zod-errors.js";

const booleanFlag = z
  .enum(["true", "false", "1", "0"], { error: 'must be "true" or "false"' })
  .transform((value) => value === "true" || value === "1");

const listQuery = z.looseObject({
  alt: z.enum(["media", "json"], { error: 'must be "media" (download) or "json" (metadata)' }).optional(),
  recursive: booleanFlag.optional(),
  page_size: z.coerce.number().int().min(1).max(1000).default(50),
  page_token: z.string().optional(),
});

/** The `{path}` of a files route: express hands the wildcard over as decoded segments. */
export function filePathParam(req: Request): string {
  const value = (req.params as Record<string, unknown>)["path"];
  if (Array.isArray(value)) return value.join("/");
  return typeof value === "string" ? value : "";
}

export function filesRouter(files: FileService): Router {
  const router = Router();

  router.get("/environments/:env/files{/*path}", async (req, res) => {
    const query = parseOrThrow(listQuery, req.query);
    const owner = ownerOfRequest(req);
    const environmentId = environmentIdOf(req.params.env);
    if (query.alt === "media") {
      await download(files, owner, environmentId, filePathParam(req), res, { recursive: query.recursive ?? false });
      return;
    }
    const page = await files.list(owner, environmentId, filePathParam(req), {
      recursive: query.recursive ?? false,
      pageSize: query.page_size,
      ...(query.page_token !== undefined ? { pageToken: query.page_token } : {}),
    });
    res.status(200).json(page);
  });

  router.get("/files/:name", async (req, res) => {
    const name = /^environment-(.+):download$/.exec(req.params.name);
    if (!name) {
      throw new NotFoundError(
        `files/${req.params.name} not found: this emulator serves only files/environment-{environment_id}:download (an environment's snapshot); an environment's files are under environments/{environment_id}/files.`,
      );
    }
    const query = parseOrThrow(snapshotQuery, req.query);
    if (query.alt !== "media")
      throw new InvalidArgumentError('alt must be "media": the snapshot is the environment\'s files as a tar archive.');
    // [choice] The workspace's archive, as the official CLI reads it (docs/fidelity.md, "the deprecated snapshot's root").
    await download(files, ownerOfRequest(req), environmentIdOf(name[1]!), "workspace", res, { recursive: true });
  });

  return router;
}

const snapshotQuery = z.looseObject({ alt: z.string().optional() });

async function download(
  files: FileService,
  owner: string,
  environmentId: string,
  apiPath: string,
  res: Response,
  options: DownloadOptions,
): Promise<void> {
  let begun = false;
  const sink: DownloadSink = {
    begin: ({ name, size, mimeType }) => {
      begun = true;
      res.status(200);
      res.setHeader("Content-Type", mimeType);
      if (size !== undefined) res.setHeader("Content-Length", String(size));
      res.setHeader("Content-Disposition", `attachment; filename*=UTF-8''${encodeURIComponent(name)}`);
      res.flushHeaders();
    },
    write: async (chunk) => {
      if (res.destroyed) throw new Error("the client went away");
      if (!res.write(chunk)) await drained(res);
    },
  };
  try {
    await files.download(owner, environmentId, apiPath, sink, options);
  } catch (error) {
    // Before the first byte the error is an ordinary JSON answer; after it, the truncated response is cut off.
    if (!begun) throw error;
    res.destroy();
    return;
  }
  res.end();
}

/** Resolves when the response can take more, rejects when the client went away; leaves no listener behind. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = (): void => {
      res.off("close", onClose);
      resolve();
    };
    const onClose = (): void => {
      res.off("drain", onDrain);
      reject(new Error("the client went away"));
    };
    res.once("drain", onDrain);
    res.once("close", onClose);
  });
}
