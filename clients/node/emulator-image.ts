// The emulator's image for InteractionsEmulatorContainer: docker-compose.yml's image (server/Dockerfile),
// built from this package when the engine does not have it yet. Its tag is a hash of everything the
// Dockerfile copies in and of the Node.js image it builds FROM, so a changed checkout gets a new image
// and an unchanged one is never built twice.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type Docker from "dockerode";
import { projectRoot } from "../../server/common/paths.js";
import { imageExists } from "../../server/sandbox/docker/image.js";

/** The repository of the images this module builds: interactions-emulator:<content hash>. */
export const EMULATOR_IMAGE_REPOSITORY = "interactions-emulator";
/** On every image this module built, with its content hash: how an older one is told from anyone else's. */
export const LABEL_EMULATOR_IMAGE = "dev.interactions-emulator.testcontainers-image";
/** server/Dockerfile's default base: this machine's Node.js on the sandbox's offline base (build-node-image.sh). */
export const LOCAL_NODE_IMAGE = "interactions-emulator-node:local";

/** What server/Dockerfile copies into the image (besides its own file, under server/). */
const BUILD_INPUTS = ["package.json", "package-lock.json", "tsconfig.json", "bin", "schemas", "server", "sandbox-image", "proxy", "ui"];
/** Never part of the build (.dockerignore), and large. */
const SKIPPED_FOLDERS = new Set(["node_modules", "dist", ".git", ".emulator"]);

export interface EmulatorImageOptions {
  docker: Docker;
  /** Progress lines of a build (minutes on a first one: npm ci compiles the native modules). */
  progress: (line: string) => void;
  /** NODE_IMAGE for server/Dockerfile; default the local one, built by build-node-image.sh when missing. */
  nodeImage?: string;
}

/** Builds running in this process, by tag: two containers started at once wait for one build. */
const building = new Map<string, Promise<string>>();

/** The tag of the emulator's image on the engine, built first if missing. */
export async function ensureEmulatorImage(options: EmulatorImageOptions): Promise<string> {
  if (!fs.existsSync(path.join(projectRoot, "server", "Dockerfile"))) {
    throw new Error(
      `the emulator's image cannot be built: ${projectRoot} has no server/Dockerfile (an installed copy without the sources); build it in a checkout (docker build -f server/Dockerfile .) and pass its name: new InteractionsEmulatorContainer("<image>")`,
    );
  }
  const nodeImage = options.nodeImage ?? process.env.NODE_IMAGE ?? LOCAL_NODE_IMAGE;
  if (nodeImage === LOCAL_NODE_IMAGE && !(await imageExists(options.docker, nodeImage))) {
    options.progress(`building ${LOCAL_NODE_IMAGE} (the Node.js image server/Dockerfile builds FROM)…`);
    await runShown(["bash", path.join(projectRoot, "server", "bootstrap", "build-node-image.sh")], options.progress, {
      NODE_BINARY: process.execPath,
    });
  }
  const nodeImageId = (await options.docker.getImage(nodeImage).inspect()).Id;
  const hash = contentHash(nodeImageId);
  const tag = `${EMULATOR_IMAGE_REPOSITORY}:${hash}`;
  if (await imageExists(options.docker, tag)) return tag;
  let build = building.get(tag);
  if (!build) {
    build = buildImage(options, nodeImage, tag, hash).finally(() => building.delete(tag));
    building.set(tag, build);
  }
  return build;
}

async function buildImage(options: EmulatorImageOptions, nodeImage: string, tag: string, hash: string): Promise<string> {
  const started = Date.now();
  options.progress(`building the emulator's image ${tag} from ${projectRoot} (a first build compiles native modules: minutes)…`);
  await runShown(
    [
      "docker",
      "build",
      "-f",
      path.join("server", "Dockerfile"),
      "--build-arg",
      `NODE_IMAGE=${nodeImage}`,
      "--label",
      `${LABEL_EMULATOR_IMAGE}=${hash}`,
      "-t",
      tag,
      ".",
    ],
    options.progress,
  );
  options.progress(`image ${tag} built in ${Math.round((Date.now() - started) / 1000)} s`);
  await removeOlderImages(options.docker, tag);
  return tag;
}

/**
 * [choice] One image of this module is kept: each checkout change makes a new one (hundreds of MB), and
 * an older one no container uses is removed; one still in use stays (the engine refuses).
 */
async function removeOlderImages(docker: Docker, keep: string): Promise<void> {
  for (const image of await docker.listImages({ filters: { label: [LABEL_EMULATOR_IMAGE] } })) {
    for (const tag of image.RepoTags ?? []) {
      if (tag !== keep && tag.startsWith(`${EMULATOR_IMAGE_REPOSITORY}:`))
        await docker
          .getImage(tag)
          .remove()
          .catch(() => undefined);
    }
  }
}

/** sha256 over the base image and every input file's path and bytes, in a fixed order. */
export function contentHash(nodeImageId: string, root = projectRoot): string {
  const hash = createHash("sha256").update(nodeImageId).update("\0");
  const addFile = (relative: string) => {
    hash
      .update(relative)
      .update("\0")
      .update(fs.readFileSync(path.join(root, relative)))
      .update("\0");
  };
  const walk = (relative: string) => {
    const entries = fs.readdirSync(path.join(root, relative), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(child);
      } else if (entry.isFile()) addFile(child);
    }
  };
  for (const input of BUILD_INPUTS) {
    const stat = fs.statSync(path.join(root, input), { throwIfNoEntry: false });
    if (stat?.isDirectory()) walk(input);
    else if (stat?.isFile()) addFile(input);
  }
  return hash.digest("hex").slice(0, 16);
}

/** The build's own lines worth showing: its steps (classic builder and BuildKit) and the npm ci heartbeat. */
const PROGRESS_LINE = /^(Step \d+\/\d+ : |#\d+ \[|Successfully |\s*… |building |Node\.js image |\s*node v)/;

/** Runs argv in the package's folder to its end, showing progress lines; rejects with the output's tail. */
function runShown(argv: string[], progress: (line: string) => void, env: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: projectRoot, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let partial = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      // Only the tail is kept for the error: a build prints megabytes.
      output = (output + text).slice(-20_000);
      const lines = (partial + text).split(/\r?\n/);
      partial = lines.pop() ?? "";
      for (const line of lines) if (PROGRESS_LINE.test(line)) progress(line.slice(0, 160));
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", (error) =>
      reject(new Error(`${argv[0]} could not be run (${error.message}): the image is built with the docker command line`)),
    );
    child.once("close", (status) => {
      if (status === 0) resolve();
      else reject(new Error(`${argv.join(" ")} failed (exit ${status}):\n${output.slice(-6000)}`));
    });
  });
}
