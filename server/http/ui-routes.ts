// The dashboard at /ui (docs/dashboard.md): one HTML page for every /ui/… address (the page routes in
// the browser), its modules and style sheet from `ui/` at /ui/assets/ (statuses.js made from the server's
// own list: ui-statuses.ts), and preact and htm from the
// installed packages at /ui/vendor/. No API key is needed for any of it: the page holds no data, and
// asks the JSON API for everything with the key the user gives it. The Host check (allowed-hosts.ts)
// applies here as everywhere, so a page of another name that rebinds to this machine gets nothing.

import fs from "node:fs";
import { fileURLToPath } from "node:url";
import express, { Router, type Response } from "express";
import { NotFoundError, UnavailableError } from "../common/errors.js";
import { uiDir } from "../common/paths.js";
import { uiShell, type VendorModule } from "./ui-shell.js";
import { statusesModule } from "./ui-statuses.js";

/** The packages the page imports, resolved where Node.js resolves them (node_modules of this package or above). */
const VENDOR: readonly VendorModule[] = [
  { specifier: "preact", file: "preact.mjs" },
  { specifier: "preact/hooks", file: "preact-hooks.mjs" },
  { specifier: "htm", file: "htm.mjs" },
];

/** Headers every response of the dashboard carries. */
function commonHeaders(res: Response): void {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
  res.setHeader("Referrer-Policy", "no-referrer");
}

export function uiRouter(): Router {
  const router = Router();
  const vendorFiles = new Map<string, string>();
  let unavailable: string | null = null;
  try {
    for (const module of VENDOR) vendorFiles.set(module.file, fileURLToPath(import.meta.resolve(module.specifier)));
    if (!fs.existsSync(uiDir)) throw new Error(`${uiDir} is missing`);
  } catch (error) {
    // The API works without the dashboard: only /ui says what is missing.
    unavailable = `The dashboard is unavailable: ${(error as Error).message}. Reinstall the package (npm ci) so that preact, htm and the ui/ folder are present.`;
  }
  const shell = uiShell(VENDOR);
  const statuses = statusesModule();

  // Made from the server's list, not a file of ui/ (ui-statuses.ts).
  router.get("/ui/assets/statuses.js", (_req, res) => {
    commonHeaders(res);
    res.setHeader("Cache-Control", "no-cache");
    res.type("text/javascript; charset=utf-8").send(statuses);
  });

  router.use(
    "/ui/assets",
    express.static(uiDir, {
      index: false,
      redirect: false,
      dotfiles: "ignore",
      etag: true,
      setHeaders: (res) => {
        commonHeaders(res);
        res.setHeader("Cache-Control", "no-cache");
      },
    }),
    (req) => {
      throw new NotFoundError(`The dashboard has no file ${req.path}.`);
    },
  );

  router.get("/ui/vendor/:file", (req, res) => {
    const file = vendorFiles.get(req.params.file);
    if (!file)
      throw new NotFoundError(
        `The dashboard has no module ${req.params.file}; it loads ${VENDOR.map((module) => module.file).join(", ")}.`,
      );
    commonHeaders(res);
    res.setHeader("Cache-Control", "no-cache");
    res.type("text/javascript; charset=utf-8").sendFile(file);
  });

  router.get(["/ui", "/ui/{*page}"], (_req, res) => {
    if (unavailable) throw new UnavailableError(unavailable);
    commonHeaders(res);
    res.setHeader("Content-Security-Policy", shell.contentSecurityPolicy);
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
    res.setHeader("Cache-Control", "no-store");
    res.status(200).type("text/html; charset=utf-8").send(shell.html);
  });

  return router;
}
