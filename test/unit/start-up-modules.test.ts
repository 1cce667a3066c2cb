// What a warm `npm start` loads (docs/setup.md#a-warm-start): the emulator's modules, and none of the
// packages that only some requests need. Each of these was once loaded at start-up, together about a
// third of its module loading; each now loads on its first use, and this keeps it so.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const serveModule = fileURLToPath(new URL("../../server/serve.js", import.meta.url));

/**
 * The packages under node_modules loaded by importing what `npm start` imports: CommonJS ones from
 * require's cache, ES modules from a resolve hook that writes down every module it resolved.
 */
function packagesLoadedAtStart(): Set<string> {
  const folder = mkdtempSync(path.join(os.tmpdir(), "start-up-modules-"));
  const record = path.join(folder, "resolved.txt");
  const hooks = `import fs from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  fs.appendFileSync(${JSON.stringify(record)}, result.url + "\\n");
  return result;
}`;
  const program = `
    import { createRequire, register } from "node:module";
    register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hooks)}));
    await import(${JSON.stringify(pathToFileURL(serveModule).href)});
    process.stdout.write(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));
  `;
  try {
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", program], { encoding: "utf8" });
    assert.equal(result.status, 0, result.stderr);
    const files = [...(JSON.parse(result.stdout) as string[]), ...readFileSync(record, "utf8").split("\n")];
    return new Set(files.flatMap((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? []));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

describe("what a warm start loads", () => {
  const loaded = packagesLoadedAtStart();

  it("loads the server's own packages", () => {
    for (const needed of ["express", "dockerode", "better-sqlite3", "zod"]) assert.ok(loaded.has(needed), `${needed} is loaded`);
  });

  for (const [name, firstUse] of [
    ["ajv", "the first JSON Schema a request brings (json-schema-engine.ts)"],
    ["node-forge", "the first leaf certificate the egress proxy mints (certificate-authority.ts)"],
    ["http-proxy", "the first request the egress proxy forwards (http-forwarder.ts)"],
    ["@grpc/grpc-js", "a BuildKit session, which the emulator never opens (dockerode.ts)"],
    ["protobufjs", "a BuildKit session (dockerode.ts)"],
    ["ssh2", "an ssh:// DOCKER_HOST (dockerode.ts)"],
    ["openai", "EMULATOR_AGENT_MODEL naming an OpenAI-compatible model"],
    ["@google/genai", "EMULATOR_AGENT_MODEL naming a Gemini model"],
    ["@modelcontextprotocol/sdk", "a run's first MCP call"],
  ] as const) {
    it(`leaves ${name} for ${firstUse}`, () => {
      assert.equal(loaded.has(name), false, `${name} was loaded at start-up`);
    });
  }
});
