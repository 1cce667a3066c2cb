// Every short-lived container the start-up creates (the storage-quota probe, the capability probes,
// the one the CA bundle is read from) carries its emulator's instance and lease labels, read from the
// engine's own create events. A container with only the image's inherited "managed" label, left behind
// when an emulator is killed mid-probe, would be found by no reconcile and no sweep.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { loadConfig } from "../../server/common/config.js";
import { dockerRuntimeFor } from "../../server/emulator.js";
import { sandboxImageTag } from "../../server/sandbox/docker/image.js";
import { LABEL_DATA_DIR, LABEL_INSTANCE, LABEL_MANAGED } from "../../server/sandbox/docker/labels.js";
import { STORE_FILE_NAME } from "../../server/store/database.js";
import { objectsOfInstance } from "../support/docker-fixture.js";

const docker = new Docker();
const suffix = randomBytes(4).toString("hex");
const instance = `itest-probes-${suffix}`;
// A tag of the sandbox image this test alone uses: the create events are picked out by it, since the
// point is that a container's own labels may not say whose it is.
const IMAGE_REPOSITORY = "interactions-emulator-probe-test";
const image = `${IMAGE_REPOSITORY}:${suffix}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "probe-labels-"));
let created: Array<Record<string, string>> = [];

before(async () => {
  const settings = loadConfig(process.env);
  // Built by the docker tier's set-up (node server/bootstrap/cli.mjs image) for the configured base.
  await docker.getImage(sandboxImageTag(settings.EMULATOR_BASE_IMAGE)).tag({ repo: IMAGE_REPOSITORY, tag: suffix });
  fs.writeFileSync(path.join(dataDir, STORE_FILE_NAME), "");
  const since = Math.floor(Date.now() / 1000) - 1;
  const config = loadConfig({
    ...process.env,
    EMULATOR_INSTANCE: instance,
    EMULATOR_DATA_DIR: dataDir,
    EMULATOR_SANDBOX_IMAGE: image,
    // So the storage-quota probe runs too.
    EMULATOR_SANDBOX_DISK_MB: "256",
  });
  const runtime = dockerRuntimeFor(config, { lease: true });
  await runtime.prepare(() => undefined);
  await runtime.trustCertificate("-----BEGIN CERTIFICATE-----\nTESTCAONLY\n-----END CERTIFICATE-----\n");
  await runtime.dropLease();
  const until = Math.floor(Date.now() / 1000) + 1;
  const events = (await docker.getEvents({
    since,
    until,
    filters: { type: ["container"], event: ["create"], image: [image] },
  })) as NodeJS.ReadableStream;
  let text = "";
  for await (const chunk of events) text += chunk.toString();
  created = text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => (JSON.parse(line) as { Actor: { Attributes: Record<string, string> } }).Actor.Attributes);
});

after(async () => {
  await docker
    .getImage(image)
    .remove()
    .catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("the start-up's probe containers", () => {
  it("each carries its emulator's instance and lease labels", () => {
    // Storage quota, the capabilities asked together, the CA bundle: at least three.
    assert.ok(created.length >= 3, `expected the start-up's probes among the create events, got ${created.length}`);
    for (const attributes of created) {
      assert.equal(attributes[LABEL_MANAGED], "true");
      assert.equal(attributes[LABEL_INSTANCE], instance, `a probe without its instance: ${JSON.stringify(attributes)}`);
      assert.equal(attributes[LABEL_DATA_DIR], dataDir, "the lease's labels, which another emulator's sweep reads");
    }
  });

  it("are all removed once the start-up's work is done", async () => {
    assert.deepEqual(await objectsOfInstance(instance), { containers: 0, volumes: 0, images: 0 });
  });
});
