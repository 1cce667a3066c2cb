// GET /schemas/hooks.json: the JSON Schema of hooks.json (server/hooks/hooks-schema.ts), so that an
// editor validates and completes a hooks.json that names it in "$schema". No API key: it is the same
// public document as schemas/hooks.schema.json in the repository, byte for byte.

import { Router } from "express";
import { hooksJsonSchema } from "../hooks/hooks-schema.js";

/** The document as committed in schemas/hooks.schema.json (two-space JSON and a final newline). */
export function hooksJsonSchemaText(): string {
  return `${JSON.stringify(hooksJsonSchema(), null, 2)}\n`;
}

export function schemaRouter(): Router {
  const router = Router();
  const body = hooksJsonSchemaText();
  router.get("/schemas/hooks.json", (_req, res) => {
    res
      .status(200)
      .type("application/schema+json; charset=utf-8")
      // Public and secret-free: a browser-based editor on another origin may load it too.
      .set("access-control-allow-origin", "*")
      .set("cache-control", "no-cache")
      .send(body);
  });
  return router;
}
