// The /{v}/environments resource: create (or fork), list, get, delete. Every environment result
// carries its real file_count and size_bytes, counted in its sandbox.

import { Router } from "express";
import type { ListEnvironmentsResponseBody } from "../wire/openapi-types.js";
import { createEnvironmentSchema, environmentIdOf } from "../api/create-environment.js";
import { createEnvironment } from "../environments/create-environment.js";
import type { EnvironmentService } from "../environments/environment-service.js";
import { renderEnvironment, type EnvironmentResource } from "../environments/render-environment.js";
import type { EnvironmentRecord } from "../environments/environment-store.js";
import { jsonLengthAtMost } from "../common/json-size.js";
import { ownerOfRequest } from "./auth.js";
import { sendJson } from "./json-stream-writer.js";
import { decodePageToken, encodePageToken } from "../common/page-token.js";
import { listQuery } from "./resource-routes.js";
import { parseOrThrow } from "./zod-errors.js";
import { UnavailableError } from "../common/errors.js";

/** How many sandboxes are asked for their usage at once when a page is listed. */
const USAGE_CONCURRENCY = 8;

export function environmentsRouter(service: EnvironmentService, options: { pageBytes: number }): Router {
  const router = Router();

  /**
   * `unavailable: "throw"` (one environment asked for) answers 503 when its sandbox cannot be reached
   * right now, rather than show counts of 0 for files that are still there.
   */
  const render = async (record: EnvironmentRecord, unavailable: "throw" | "zero" = "zero"): Promise<EnvironmentResource> => {
    let usage = { files: 0, bytes: 0 };
    try {
      usage = await service.usage(record);
    } catch (error) {
      if (unavailable === "throw" && error instanceof UnavailableError) throw error;
      // A sandbox that just expired or stopped answering holds nothing we can count; the record says which.
    }
    return renderEnvironment(service.reload(record), usage);
  };

  router.post("/environments", async (req, res) => {
    const request = parseOrThrow(createEnvironmentSchema, req.body ?? {});
    const record = await createEnvironment(service, ownerOfRequest(req), request);
    res.status(200).json(await render(record));
  });

  router.get("/environments", async (req, res) => {
    const query = parseOrThrow(listQuery, req.query);
    const position = query.page_token ? decodePageToken(query.page_token, isListPosition) : null;
    const after = position ? { created: position[0], id: position[1] } : null;
    const page = service.listPage(ownerOfRequest(req), query.page_size + 1, after);
    let more = page.length > query.page_size;
    const shown = page.slice(0, query.page_size);
    // The page also ends before the environment that would take its JSON past about
    // EMULATOR_LIST_PAGE_BYTES (at least one is shown): a record's sources and network can be large.
    let bytes = 0;
    const fits = shown.findIndex((record, index) => {
      bytes += jsonLengthAtMost(renderEnvironment(record, { files: 0, bytes: 0 }), options.pageBytes);
      return index > 0 && bytes > options.pageBytes;
    });
    if (fits > 0) {
      shown.length = fits;
      more = true;
    }
    const environments: EnvironmentResource[] = new Array(shown.length);
    for (let start = 0; start < shown.length; start += USAGE_CONCURRENCY) {
      const batch = shown.slice(start, start + USAGE_CONCURRENCY);
      for (const [index, resource] of (await Promise.all(batch.map((record) => render(record)))).entries())
        environments[start + index] = resource;
    }
    const last = shown.at(-1);
    // The document's page of environments, each as the emulator answers it (render-environment.ts).
    const body = { environments, next_page_token: more && last ? encodePageToken([last.created, last.id]) : "" } satisfies Omit<
      ListEnvironmentsResponseBody,
      "environments"
    > & { environments: EnvironmentResource[] };
    await sendJson(res, body);
  });

  router.get("/environments/:id", async (req, res) => {
    res.status(200).json(await render(service.getVisible(environmentIdOf(req.params.id), ownerOfRequest(req)), "throw"));
  });

  router.delete("/environments/:id", async (req, res) => {
    await service.remove(ownerOfRequest(req), environmentIdOf(req.params.id));
    res.status(200).json({});
  });

  return router;
}

/** Where the next page of the newest-first listing starts: [created, id] of the last one shown. */
const isListPosition = (value: unknown): value is [string, string] =>
  Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === "string");
