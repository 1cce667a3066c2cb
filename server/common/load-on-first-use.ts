// A package loaded the first time it is used rather than when the emulator starts: a warm `npm start`
// is healthy in well under two seconds only if it does not parse what no request has needed yet (Ajv's
// 95 files for the first JSON Schema, tar-stream for the first archive). Only for CommonJS packages,
// which `require` loads synchronously, so the code that uses them stays synchronous.

import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** A function that returns the package `specifier`, loading it on its first call. */
export function loadOnFirstUse<Module>(specifier: string): () => Module {
  let loaded: Module | undefined;
  return () => {
    loaded ??= require(specifier) as Module;
    return loaded;
  };
}
