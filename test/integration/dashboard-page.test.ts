// The dashboard's page and modules as the emulator serves them (`npm start` wiring, fake sandboxes):
// without an API key, only to the names the emulator answers to, with a Content-Security-Policy whose
// one script hash is the import map's, the packages' modules exactly as installed, and every module the
// page imports present. The browser test (test/e2e/dashboard.test.ts) shows the page working.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { projectRoot, uiDir } from "../../server/common/paths.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { rawGet as rawGetAt } from "../support/raw-get.js";

let emulator: FakeRuntimeEmulator;

before(async () => {
  // Keys are required here: the page must be served without one all the same.
  emulator = await startFakeRuntimeEmulator({ EMULATOR_API_KEYS: "only-this-key" });
});
after(async () => {
  await emulator?.close();
});

async function page(pathname: string) {
  const response = await fetch(`${emulator.url}${pathname}`);
  return { response, body: await response.text() };
}

/** A GET with the path exactly as written. */
function rawGet(pathname: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return rawGetAt(emulator.url, pathname, headers);
}

function importMapOf(html: string): { text: string; imports: Record<string, string> } {
  const match = /<script type="importmap">([^<]*)<\/script>/.exec(html);
  assert.ok(match, "the page has no import map");
  return { text: match[1]!, imports: (JSON.parse(match[1]!) as { imports: Record<string, string> }).imports };
}

function policyOf(header: string | null): Map<string, string[]> {
  assert.ok(header, "no Content-Security-Policy");
  return new Map(
    header.split(";").map((directive) => {
      const [name, ...values] = directive.trim().split(/\s+/);
      return [name!, values];
    }),
  );
}

/** The ui/ modules, as paths relative to ui/. */
function uiModules(folder = uiDir): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return uiModules(full);
    return entry.name.endsWith(".js") ? [path.relative(uiDir, full)] : [];
  });
}

describe("the dashboard's page", () => {
  it("is served at /ui and every address under it, without an API key, as HTML that is never cached", async () => {
    for (const address of ["/ui", "/ui/", "/ui/interactions/int_x", "/ui/environments/env_y?path=workspace", "/ui?key=abc"]) {
      const { response, body } = await page(address);
      assert.equal(response.status, 200, address);
      assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
      assert.equal(response.headers.get("cache-control"), "no-store");
      assert.match(body, /<script type="module" src="\/ui\/assets\/app.js"><\/script>/);
    }
  });

  it("carries a strict Content-Security-Policy whose only inline script is the import map, by its hash", async () => {
    const { response, body } = await page("/ui");
    const policy = policyOf(response.headers.get("content-security-policy"));
    const { text } = importMapOf(body);
    const hash = createHash("sha256").update(text, "utf8").digest("base64");
    assert.deepEqual(policy.get("script-src"), ["'self'", `'sha256-${hash}'`]);
    assert.deepEqual(policy.get("default-src"), ["'none'"]);
    assert.deepEqual(policy.get("connect-src"), ["'self'"]);
    assert.deepEqual(policy.get("style-src"), ["'self'"]);
    assert.deepEqual(policy.get("frame-ancestors"), ["'none'"]);
    assert.deepEqual(policy.get("base-uri"), ["'none'"]);
    assert.deepEqual(policy.get("form-action"), ["'none'"]);
    assert.deepEqual(policy.get("require-trusted-types-for"), ["'script'"]);
    // Every other script is a file of this emulator.
    const scripts = [...body.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
    for (const [, attributes, content] of scripts) {
      if (attributes!.includes('type="importmap"')) continue;
      assert.match(attributes!, /src="\/ui\//);
      assert.equal(content, "");
    }
    assert.equal(response.headers.get("x-frame-options"), "DENY");
    assert.equal(response.headers.get("referrer-policy"), "no-referrer");
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
  });

  it("maps preact, preact/hooks and htm to the installed packages' modules, byte for byte", async () => {
    const { body } = await page("/ui");
    const { imports } = importMapOf(body);
    assert.deepEqual(Object.keys(imports).sort(), ["htm", "preact", "preact/hooks"]);
    for (const [specifier, address] of Object.entries(imports)) {
      const response = await fetch(`${emulator.url}${address}`);
      assert.equal(response.status, 200, address);
      assert.equal(response.headers.get("content-type"), "text/javascript; charset=utf-8");
      const installed = fs.readFileSync(fileURLToPath(import.meta.resolve(specifier)), "utf8");
      assert.equal(await response.text(), installed, specifier);
    }
  });

  it("serves every module of ui/ and the style sheet, and every import they make resolves", async () => {
    const { body } = await page("/ui");
    const { imports } = importMapOf(body);
    // statuses.js is made by the server from its own list (server/http/ui-statuses.ts), not a file of ui/.
    const modules = [...uiModules(), "statuses.js"];
    assert.ok(modules.includes("app.js"));
    for (const module of modules) {
      const response = await fetch(`${emulator.url}/ui/assets/${module}`);
      assert.equal(response.status, 200, module);
      assert.match(response.headers.get("content-type") ?? "", /^text\/javascript/);
      const source = await response.text();
      for (const [, specifier] of source.matchAll(/^import\s[^;]*?from\s+"([^"]+)";/gms)) {
        if (specifier!.startsWith(".")) {
          const target = path.join(path.dirname(module), specifier!);
          assert.ok(modules.includes(target), `${module} imports ${specifier}, which ui/ does not have (nor the server makes)`);
        } else {
          assert.ok(imports[specifier!], `${module} imports ${specifier}, which the import map does not name`);
        }
      }
    }
    const css = await fetch(`${emulator.url}/ui/assets/style.css`);
    assert.equal(css.status, 200);
    assert.match(css.headers.get("content-type") ?? "", /^text\/css/);
  });

  it("answers what it does not have with a 404 in Google's shape, and nothing outside ui/", async () => {
    // Sent as written (fetch would resolve the dots before sending).
    for (const address of [
      "/ui/assets/nope.js",
      "/ui/assets/../package.json",
      "/ui/assets/%2e%2e/package.json",
      "/ui/assets/..%2f..%2fpackage.json",
      "/ui/assets/.gitignore",
      "/ui/vendor/react.mjs",
      "/ui/vendor/..%2fpackage.json",
    ]) {
      const { status, body } = await rawGet(address);
      assert.equal(status, 404, address);
      assert.equal((JSON.parse(body) as { error: { status: string } }).error.status, "NOT_FOUND", address);
    }
  });

  it("answers only to the names the emulator answers to (the Host check applies)", async () => {
    assert.equal((await rawGet("/ui", { host: "evil.example" })).status, 403);
  });

  it("ships in the package: every file of ui/ and the compiled route are in what npm would publish", () => {
    const packed = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: projectRoot, encoding: "utf8" });
    assert.equal(packed.status, 0, packed.stderr);
    const files = new Set((JSON.parse(packed.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path));
    for (const module of [...uiModules(), "style.css"])
      assert.ok(files.has(`ui/${module}`), `ui/${module} is not in the package (package.json "files")`);
    assert.ok(files.has("dist/server/http/ui-routes.js"));
  });

  it("holds no data: the API behind it still asks for the key", async () => {
    // A new connection (rawGet's own): the test before holds this process (and the emulator in it) in
    // npm pack long enough for the server to close a kept-alive one, which would be reused (ECONNRESET).
    assert.equal((await rawGet("/emulator/interactions")).status, 401);
  });
});
