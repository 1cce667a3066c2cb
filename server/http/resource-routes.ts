// The routes of a resource kept per API key with the SDK's plain methods (agents, credentials,
// triggers): create, list in pages, get, update with an update_mask, delete. Each resource's routes file
// mounts these and adds what only it has (a trigger's executions).

import type { Router } from "express";
import { z } from "zod";
import { ownerOfRequest } from "./auth.js";
import { sendJson } from "./json-stream-writer.js";
import { parseOrThrow } from "./zod-errors.js";

/** The query of a list route: page_size (1 to 1000, 50 unless given) and the previous page's token. */
export const listQuery = z.looseObject({
  page_size: z.coerce.number().int().min(1).max(1000).default(50),
  page_token: z.string().optional(),
});
export type ListQuery = z.infer<typeof listQuery>;

/** The query of an update route: which fields the body sets (each resource knows its own). */
export const updateQuery = z.looseObject({ update_mask: z.string().optional() });

/** One resource's part in its routes; each method gets the caller's owner and the ID from the path as sent. */
export interface ResourceRoutes<R, Q extends ListQuery = ListQuery> {
  /** The path segment. */
  collection: string;
  render(record: R): unknown;
  /** `body` is the request's body, parsed as JSON ({} when there is none). */
  create(owner: string, body: unknown): R;
  /** The list route's query when it takes more than listQuery's (a trigger's filter). */
  listQuery?: z.ZodType<Q>;
  /**
   * One page's answer: the page's records rendered, under the collection's name, and the token of the
   * next page ("" on the last); each resource writes it `satisfies` the document's List…ResponseBody.
   */
  list(owner: string, query: Q): object;
  get(owner: string, id: string): R;
  /** No PATCH route when absent (the SDK's agents have no update). */
  update?(owner: string, id: string, body: unknown, updateMask: string | undefined): R;
  delete(owner: string, id: string): void;
}

export function mountResourceRoutes<R, Q extends ListQuery = ListQuery>(router: Router, resource: ResourceRoutes<R, Q>): void {
  const { collection, render } = resource;
  const pageQuery = resource.listQuery ?? (listQuery as z.ZodType<Q>);

  router.post(`/${collection}`, (req, res) => {
    res.status(200).json(render(resource.create(ownerOfRequest(req), req.body ?? {})));
  });

  // Pages bounded in bytes (EMULATOR_LIST_PAGE_BYTES), written piece by piece: never one string.
  router.get(`/${collection}`, async (req, res) => {
    await sendJson(res, resource.list(ownerOfRequest(req), parseOrThrow(pageQuery, req.query)));
  });

  router.get(`/${collection}/:id`, (req, res) => {
    res.status(200).json(render(resource.get(ownerOfRequest(req), req.params.id)));
  });

  const { update } = resource;
  if (update) {
    router.patch(`/${collection}/:id`, (req, res) => {
      const { update_mask } = parseOrThrow(updateQuery, req.query);
      res.status(200).json(render(update(ownerOfRequest(req), req.params.id, req.body ?? {}, update_mask)));
    });
  }

  router.delete(`/${collection}/:id`, (req, res) => {
    resource.delete(ownerOfRequest(req), req.params.id);
    res.status(200).json({});
  });
}
