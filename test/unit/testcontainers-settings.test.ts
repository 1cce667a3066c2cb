// The Testcontainers module's pure parts: the container's variables (clients/node/
// container-settings.ts), the image's content hash (emulator-image.ts), and the types
// (types/testcontainers.d.ts, generated: package-declarations.test.ts) agreeing with the implementation. The container itself:
// test/e2e/testcontainers.test.ts.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { baseUrlOf, containerEnvironment, publishOnLoopbackOnly } from "../../clients/node/container-settings.js";
import { contentHash } from "../../clients/node/emulator-image.js";
import type * as Implemented from "../../clients/node/index.js";
import type * as Declared from "../../types/testcontainers.js";

// Compile-time: the declared public surface and the implemented one agree both ways. Private members
// make classes nominal, so each side's public members are compared: the builder's by their parameters
// (its with…() methods return `this`, the class itself), start()'s result by its members.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Public<T> = Pick<T, keyof T>;
type Builder<T extends { start(): Promise<unknown> }> = {
  [K in keyof Omit<T, "start">]: T[K] extends (...args: infer P) => unknown ? P : T[K];
};
type Started<T extends { start(): Promise<unknown> }> = Public<Awaited<ReturnType<T["start"]>>>;
const declaredFitsImplementation: Same<
  Builder<Declared.InteractionsEmulatorContainer>,
  Builder<Implemented.InteractionsEmulatorContainer>
> &
  Same<Started<Declared.InteractionsEmulatorContainer>, Started<Implemented.InteractionsEmulatorContainer>> &
  Same<Public<Declared.StartedInteractionsEmulatorContainer>, Public<Implemented.StartedInteractionsEmulatorContainer>> &
  Same<
    ConstructorParameters<typeof Declared.InteractionsEmulatorContainer>,
    ConstructorParameters<typeof Implemented.InteractionsEmulatorContainer>
  > &
  Same<typeof Declared.EMULATOR_IMAGE_REPOSITORY, typeof Implemented.EMULATOR_IMAGE_REPOSITORY> = true;

describe("the emulator container's variables", () => {
  it("sets the instance and passes the settings through", () => {
    assert.deepEqual(
      containerEnvironment({ instance: "tc-1", settings: { EMULATOR_TOOL_TIMEOUT_SECONDS: "30" }, engineHost: "localhost" }),
      { EMULATOR_TOOL_TIMEOUT_SECONDS: "30", EMULATOR_INSTANCE: "tc-1" },
    );
  });

  it("refuses what the container decides, saying why", () => {
    for (const name of ["PORT", "HOST", "EMULATOR_DATA_DIR"]) {
      assert.throws(
        () => containerEnvironment({ instance: "tc-1", settings: { [name]: "x" }, engineHost: "localhost" }),
        new RegExp(`withSettings\\(\\): ${name} is decided by the container .*leave it out`),
      );
    }
  });

  it("allows a remote engine's host name, beside the names given, and not loopback names or addresses", () => {
    assert.equal(
      containerEnvironment({ instance: "i", settings: { EMULATOR_ALLOWED_HOSTS: "emulator" }, engineHost: "docker" })
        .EMULATOR_ALLOWED_HOSTS,
      "emulator,docker",
    );
    assert.equal(
      containerEnvironment({ instance: "i", settings: { EMULATOR_ALLOWED_HOSTS: "docker" }, engineHost: "docker" }).EMULATOR_ALLOWED_HOSTS,
      "docker",
    );
    for (const host of ["localhost", "127.0.0.1", "10.0.0.5", "::1", "ci.localhost"]) {
      assert.equal(containerEnvironment({ instance: "i", settings: {}, engineHost: host }).EMULATOR_ALLOWED_HOSTS, undefined, host);
    }
  });

  it("publishes the port on loopback only for an engine on this machine", () => {
    for (const host of ["localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "ci.localhost"])
      assert.equal(publishOnLoopbackOnly(host), true, host);
    for (const host of ["docker", "10.0.0.5", "host.docker.internal", "::ffff:10.0.0.1"])
      assert.equal(publishOnLoopbackOnly(host), false, host);
  });

  it("writes the base URL with an IPv6 address in brackets", () => {
    assert.equal(baseUrlOf("localhost", 32771), "http://localhost:32771");
    assert.equal(baseUrlOf("::1", 32771), "http://[::1]:32771");
  });
});

describe("the emulator image's content hash", () => {
  it("changes with the base image and with any copied file, not with what the build ignores", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "tc-hash-"));
    try {
      fs.mkdirSync(path.join(root, "server", "node_modules"), { recursive: true });
      fs.writeFileSync(path.join(root, "package.json"), "{}");
      fs.writeFileSync(path.join(root, "server", "main.ts"), "one");
      const first = contentHash("sha256:a", root);
      assert.match(first, /^[0-9a-f]{16}$/);
      assert.equal(contentHash("sha256:a", root), first);
      assert.notEqual(contentHash("sha256:b", root), first);
      fs.writeFileSync(path.join(root, "server", "node_modules", "x.js"), "ignored");
      fs.mkdirSync(path.join(root, "docs"));
      fs.writeFileSync(path.join(root, "docs", "x.md"), "not copied by the Dockerfile");
      assert.equal(contentHash("sha256:a", root), first);
      fs.writeFileSync(path.join(root, "server", "main.ts"), "two");
      assert.notEqual(contentHash("sha256:a", root), first);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("has types that agree with its implementation", () => {
    assert.equal(declaredFitsImplementation, true);
  });
});
