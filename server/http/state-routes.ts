// State snapshots (docs/state-snapshots.md), emulator-only and per API key:
//   GET  /emulator/state                    the key's state as a state file (application/gzip)
//   GET  /emulator/state?include_secrets=true with X-Emulator-Passphrase: secrets sealed with it
//   POST /emulator/state                    the body is a state file; X-Emulator-Passphrase opens its secrets
// Mounted before the JSON body parser: the body is the file's bytes, streamed to the reader, which
// bounds them (EMULATOR_STATE_MAX_BYTES). [choice] The passphrase travels in a header, not the query
// string, so that it stays out of access logs and the browser's history.

import { Router, type Request } from "express";
import { InvalidArgumentError } from "../common/errors.js";
import type { StateService } from "../snapshots/state-service.js";
import { ownerOfRequest } from "./auth.js";

const PASSPHRASE_HEADER = "x-emulator-passphrase";

function passphraseOf(req: Request): string | undefined {
  const value = req.get(PASSPHRASE_HEADER);
  return value === undefined || value === "" ? undefined : value;
}

export function stateRouter(state: StateService): Router {
  const router = Router();

  router.get("/", async (req, res) => {
    const include = req.query.include_secrets;
    if (include !== undefined && include !== "true" && include !== "false") {
      throw new InvalidArgumentError('include_secrets is "true" or "false".');
    }
    const passphrase = passphraseOf(req);
    if (include === "true" && passphrase === undefined) {
      throw new InvalidArgumentError(
        `include_secrets=true needs a passphrase to seal the secrets with, in the ${PASSPHRASE_HEADER} header.`,
      );
    }
    const write = await state.export(ownerOfRequest(req), include === "true" ? { passphrase: passphrase! } : {});
    res.status(200).set({
      "content-type": "application/gzip",
      "content-disposition": 'attachment; filename="emulator-state.tar.gz"',
      "cache-control": "no-store",
    });
    // Everything is gathered: a failure from here on can only cut the file short, which import refuses.
    await write(res).catch(() => res.destroy());
  });

  router.post("/", async (req, res) => {
    const passphrase = passphraseOf(req);
    const report = await state.import(ownerOfRequest(req), req, passphrase === undefined ? {} : { passphrase });
    res.status(200).json(report);
  });

  return router;
}
