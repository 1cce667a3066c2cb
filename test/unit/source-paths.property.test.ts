// Property tests (fast-check) for the path checks that face request input: where a source lands
// (resolveTarget, and prepareSources around it), the files API's paths and reach (parseFilePath,
// checkReach), and where a repository source comes from (resolveRepositoryLocation). For any input,
// each either answers in its own terms (a well-formed result, or its own typed error) or fails the test:
// no TypeError, no RangeError, no path that escapes, no malformed result.

import assert from "node:assert/strict";
import path from "node:path/posix";
import { describe, it } from "node:test";
import fc from "fast-check";
import { InvalidArgumentError, PermissionDeniedError } from "../../server/common/errors.js";
import { apiPathOf, checkReach, parseFilePath } from "../../server/files/sandbox-path.js";
import { isWithin } from "../../server/common/paths.js";
import { isReservedTopLevel, PSEUDO_FOLDERS, RESERVED_PREFIXES, ROOT_FOLDERS, reservedPlaceOf } from "../../server/sandbox/layout.js";
import { prepareSources } from "../../server/sources/inline-sources.js";
import { RepositorySourceError, resolveRepositoryLocation } from "../../server/sources/repository-source.js";
import { resolveTarget } from "../../server/sources/target-path.js";
import { runs } from "../support/property-runs.js";

const RUNS = runs(2000);

/** Path pieces that matter to the checks, mixed with arbitrary text. */
const segment = fc.oneof(
  fc.constantFrom("", ".", "..", "...", "workspace", ".agents", "etc", "proc", "dev", "sys", "lib", "lib64", "libx", "opt", "emulator"),
  fc.constantFrom(
    "usr",
    "libexec",
    "interactions-emulator",
    "tmp",
    "home",
    "a b",
    "-",
    "~",
    "%2e%2e",
    "\\",
    "\0",
    " ",
    "\t",
    "\n",
    "é",
    "😀",
    "\u202e",
  ),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: "grapheme", maxLength: 4 }),
);

/** Relative-looking, absolute-looking and doubled-slash paths built from those pieces. */
const pathLike = fc.oneof(
  fc.array(segment, { maxLength: 7 }).map((parts) => parts.join("/")),
  fc.array(segment, { maxLength: 7 }).map((parts) => `/${parts.join("/")}`),
  fc.tuple(fc.array(segment, { maxLength: 5 }), fc.constantFrom("/", "//", "/./", "/../")).map(([parts, glue]) => parts.join(glue)),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
);

/** A well-formed absolute sandbox path: normalised, no trailing slash (but "/"), no NUL or backslash. */
function assertNormalisedAbsolute(result: string, what: string): void {
  assert.ok(result.startsWith("/"), `${what}: ${JSON.stringify(result)} is absolute`);
  assert.equal(path.normalize(result), result, `${what}: ${JSON.stringify(result)} is normalised`);
  assert.ok(result === "/" || !result.endsWith("/"), `${what}: no trailing slash`);
  assert.ok(!result.split("/").includes(".."), `${what}: no ".."`);
  assert.ok(!result.includes("\0") && !result.includes("\\"), `${what}: no NUL or backslash`);
}

describe("resolveTarget (where a source lands), for any input", () => {
  it("answers ok with a normalised path inside the root and outside reserved folders, or not ok with a reason; never throws", () => {
    fc.assert(
      fc.property(pathLike, (target) => {
        const result = resolveTarget(target);
        assert.equal(typeof result.ok, "boolean");
        if (!result.ok) {
          assert.equal(Object.keys(result).sort().join(), "ok,reason");
          assert.ok(typeof result.reason === "string" && result.reason.length > 0);
          return;
        }
        assert.equal(Object.keys(result).sort().join(), "ok,path");
        assertNormalisedAbsolute(result.path, "target");
        assert.notEqual(result.path, "/", "never the root itself");
        // The place the target names (absolute: from the root; relative: from the root when it starts
        // with a folder there, else from /workspace): nothing climbs out.
        const fromRoot = path.resolve("/", target);
        const top = fromRoot.split("/")[1] ?? "";
        const expected = target.startsWith("/") || ROOT_FOLDERS.includes(top) ? fromRoot : `/workspace${fromRoot}`;
        assert.equal(result.path, expected);
        const relative = result.path.slice(1);
        assert.ok(!isReservedTopLevel(relative.split("/")[0]!), `${result.path} is not in a system folder`);
        assert.ok(!RESERVED_PREFIXES.some((prefix) => isWithin(relative, prefix)), `${result.path} is not the executor's`);
        assert.equal(reservedPlaceOf(result.path), null, `${result.path} is not on, under or above a reserved folder`);
        // Stable: the place it names is accepted as itself.
        assert.deepEqual(resolveTarget(result.path), result);
      }),
      RUNS,
    );
  });

  it("is wrapped by prepareSources into a 400 naming the source, or a placed file; nothing else escapes", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ target: pathLike, content: fc.string({ maxLength: 8 }) }), { maxLength: 4 }), (sources) => {
        try {
          const prepared = prepareSources(
            sources.map((source) => ({ type: "inline", ...source })),
            1 << 20,
          );
          for (const file of prepared.files) assertNormalisedAbsolute(file.path, "placed file");
        } catch (error) {
          assert.ok(error instanceof InvalidArgumentError, `only a 400, got ${String(error)}`);
          assert.match(error.message, /^environment\.sources/);
        }
      }),
      RUNS,
    );
  });
});

describe("parseFilePath and checkReach (the files API's paths), for any input", () => {
  it("parseFilePath returns a normalised absolute path that round-trips, or throws its 400", () => {
    fc.assert(
      fc.property(pathLike, (input) => {
        let result: string;
        try {
          result = parseFilePath(input);
        } catch (error) {
          assert.ok(error instanceof InvalidArgumentError, `only a 400, got ${String(error)}`);
          assert.equal(error.httpStatus, 400);
          return;
        }
        assert.equal(typeof result, "string");
        assertNormalisedAbsolute(result, "file path");
        // From the root when it starts with a folder at the root (workspace/, tmp/, …), else from /workspace.
        const fromRoot = path.resolve("/", input);
        const top = fromRoot.split("/")[1] ?? "";
        const expected = fromRoot === "/" ? "/workspace" : ROOT_FOLDERS.includes(top) ? fromRoot : `/workspace${fromRoot}`;
        assert.equal(result, expected, "the place the input names");
        assert.equal(parseFilePath(apiPathOf(result)), result, "round trip through the API's form");
      }),
      RUNS,
    );
  });

  it("checkReach refuses with its 403 exactly what lies in a pseudo folder, or (to write) a reserved one; nothing else", () => {
    const absolute = fc.array(segment, { maxLength: 6 }).map((parts) => path.normalize(`/${parts.join("/")}`));
    fc.assert(
      fc.property(absolute, fc.constantFrom("read" as const, "write" as const), pathLike, (realPath, access, shown) => {
        const mustRefuse =
          PSEUDO_FOLDERS.some((folder) => isWithin(realPath, folder)) ||
          (access === "write" && realPath !== "/" && reservedPlaceOf(realPath) !== null);
        let refused = false;
        try {
          assert.equal(checkReach(realPath, access, shown), undefined);
        } catch (error) {
          assert.ok(error instanceof PermissionDeniedError, `only a 403, got ${String(error)}`);
          assert.equal(error.httpStatus, 403);
          refused = true;
        }
        assert.equal(refused, mustRefuse, `${access} ${realPath}`);
      }),
      RUNS,
    );
  });
});

describe("resolveRepositoryLocation (where a repository comes from), for any input", () => {
  it("returns an http(s) URL or an absolute local path with its roots, or throws its own error", () => {
    const source = fc.oneof(
      pathLike,
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc
        .tuple(fc.constantFrom("file://", "file:", "http://", "https://", "git://", "ssh://", "ext::", "HTTP://", "-"), pathLike)
        .map(([scheme, rest]) => scheme + rest),
    );
    const map = [{ prefix: "https://github.com/acme/", local: "/srv/mirrors" }];
    fc.assert(
      fc.property(source, (input) => {
        let location: ReturnType<typeof resolveRepositoryLocation>;
        try {
          location = resolveRepositoryLocation(input, { map, roots: ["/srv/repos"] });
        } catch (error) {
          assert.ok(error instanceof RepositorySourceError, `only its own error, got ${String(error)}`);
          return;
        }
        if (location.kind === "url") {
          assert.match(location.url, /^https?:\/\/[^/]/);
          assert.ok(location.host.length > 0);
        } else {
          assert.equal(location.kind, "local");
          assert.ok(location.path.startsWith("/") && !location.path.includes("\0"));
          assert.ok(location.roots.length > 0 || !input.startsWith("https://github.com/acme/"));
        }
      }),
      RUNS,
    );
  });
});
