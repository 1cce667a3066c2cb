// Makes sure the sandbox image exists, building it (and, where no registry answers, its base image)
// with progress shown. The tag carries a hash of everything that goes into the image, so a changed
// Dockerfile or executor is rebuilt automatically and an unchanged one is never rebuilt.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type Docker from "dockerode";
import { Readable } from "node:stream";
import { executorBinaryPath, sandboxImageDir } from "../../common/paths.js";
import { EXECUTOR_FOLDER } from "../layout.js";
import { LABEL_IMAGE_HASH, LABEL_MANAGED } from "./labels.js";
import { tarBuffer } from "../../common/tar.js";

export const OFFLINE_BASE_TAG = "emulator-base:bookworm";
const IMAGE_REPOSITORY = "interactions-emulator-sandbox";
/** How much of a failing build step's output its error carries. */
const MAX_STEP_OUTPUT_CHARS = 2000;

export interface ImageOptions {
  /** Use this image as it is and build nothing. */
  fixedImage?: string;
  baseImage: string;
  offlineBase: "auto" | "always" | "never";
}

type Progress = (line: string) => void;

interface ContextFile {
  name: string;
  content: Buffer;
  /** Its mode in the build context, which COPY keeps. */
  mode: number;
}

/**
 * Where the Dockerfile puts the executor (COPY sandbox-executor /usr/libexec/interactions-emulator/), and
 * what the emulator `docker exec`s as root. Every folder on its way is root's and refused to every input
 * that places a file (layout.ts, reservedPlaceOf): see docs/security.md#the-executors-own-place.
 */
export const EXECUTOR_PATH = `${EXECUTOR_FOLDER}/sandbox-executor`;
/** Root's, executable by everyone (the executor starts as root; nothing else needs to write it). */
const EXECUTOR_MODE = 0o755;

function readContext(): ContextFile[] {
  if (!fs.existsSync(executorBinaryPath)) {
    throw new Error(`the executor is not built (${executorBinaryPath} is missing); run npm run build`);
  }
  return [
    { name: "Dockerfile", content: fs.readFileSync(path.join(sandboxImageDir, "Dockerfile")), mode: 0o644 },
    { name: "sandbox-executor", content: fs.readFileSync(executorBinaryPath), mode: EXECUTOR_MODE },
  ];
}

/**
 * This version's executor as a tar to unpack at the container's root: the binary the image build
 * copies to EXECUTOR_PATH, root's, as the image has it. An older container (its executor in
 * /opt/emulator/, a Node.js one or a binary) gets it beside its old files, which nothing runs any more.
 */
export function executorArchive(): Promise<Buffer> {
  const executor = readContext().find((file) => file.name === "sandbox-executor")!;
  return tarBuffer([{ header: { name: EXECUTOR_PATH.slice(1), uid: 0, gid: 0, mode: executor.mode }, content: executor.content }]);
}

function contextHash(files: ContextFile[], baseImage: string): string {
  const hash = createHash("sha256").update(`base=${baseImage}\n`);
  for (const file of files) hash.update(`${file.name}\n${file.mode.toString(8)}\n${file.content.length}\n`).update(file.content);
  return hash.digest("hex").slice(0, 16);
}

/** Whether the engine has the image; an engine that fails or does not answer is an error, not a missing image (which would start a build). */
export async function imageExists(docker: Docker, name: string): Promise<boolean> {
  try {
    await docker.getImage(name).inspect();
    return true;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false;
    throw error;
  }
}

async function tryPull(docker: Docker, name: string, progress: Progress): Promise<boolean> {
  progress(`pulling ${name}…`);
  try {
    const stream = await docker.pull(name);
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(stream, (error: Error | null) => (error ? reject(error) : resolve())),
    );
    return true;
  } catch (error) {
    progress(`cannot pull ${name} (${(error as Error).message.split("\n")[0]})`);
    return false;
  }
}

function runBuildBaseScript(tag: string, progress: Progress): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [path.join(sandboxImageDir, "build-base.sh"), tag], { stdio: ["ignore", "pipe", "pipe"] });
    let tail = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      tail = (tail + text).slice(-2000);
      for (const line of text.split("\n")) if (line.trim()) progress(line.trim());
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`building the offline base image failed (exit ${code}):\n${tail}`)),
    );
  });
}

/** The base image to build FROM: the configured one if present or pullable, else one built offline. */
async function resolveBaseImage(docker: Docker, options: ImageOptions, progress: Progress): Promise<string> {
  if (options.offlineBase !== "always") {
    if (await imageExists(docker, options.baseImage)) return options.baseImage;
    if (await tryPull(docker, options.baseImage, progress)) return options.baseImage;
    if (options.offlineBase === "never") {
      // "never" forbids building the offline base (the emulator in docker-compose.yml has no debootstrap and no
      // root on the host), not using one that the host's set-up (npm start, npm run image) built already.
      if (await imageExists(docker, OFFLINE_BASE_TAG)) return OFFLINE_BASE_TAG;
      throw new Error(
        `base image ${options.baseImage} is neither present nor pullable, no offline base ${OFFLINE_BASE_TAG} is present, and ` +
          `EMULATOR_OFFLINE_BASE=never: build the offline base on the Docker host (npm run image, or sandbox-image/build-base.sh as root)`,
      );
    }
  }
  if (!(await imageExists(docker, OFFLINE_BASE_TAG))) {
    progress(`building base image ${OFFLINE_BASE_TAG} from Debian packages (no registry needed)…`);
    await runBuildBaseScript(OFFLINE_BASE_TAG, progress);
  }
  return OFFLINE_BASE_TAG;
}

/**
 * The tag of the sandbox image built FROM `baseImage` with this version's Dockerfile and executor. The
 * hash names the configured base, so switching to the offline base does not change the tag.
 */
export function sandboxImageTag(baseImage: string): string {
  return `${IMAGE_REPOSITORY}:${contextHash(readContext(), baseImage)}`;
}

/** Returns the sandbox image's name, building whatever is missing. */
export async function ensureSandboxImage(docker: Docker, options: ImageOptions, progress: Progress): Promise<string> {
  if (options.fixedImage) {
    if (!(await imageExists(docker, options.fixedImage)) && !(await tryPull(docker, options.fixedImage, progress))) {
      throw new Error(`EMULATOR_SANDBOX_IMAGE ${options.fixedImage} is neither present nor pullable`);
    }
    return options.fixedImage;
  }
  const files = readContext();
  const hash = contextHash(files, options.baseImage);
  const tag = `${IMAGE_REPOSITORY}:${hash}`;
  if (await imageExists(docker, tag)) return tag;

  const baseImage = await resolveBaseImage(docker, options, progress);
  progress(`building sandbox image ${tag} FROM ${baseImage}…`);
  const context = await tarBuffer(files.map((file) => ({ header: { name: file.name, mode: file.mode }, content: file.content })));
  const stream = await docker.buildImage(Readable.from([context]), {
    t: tag,
    buildargs: { BASE_IMAGE: baseImage },
    labels: { [LABEL_MANAGED]: "true", [LABEL_IMAGE_HASH]: hash },
    rm: true,
    forcerm: true,
  });
  // What the failing step printed: the engine's error only says it "returned a non-zero code", and the
  // Dockerfile says why it refuses a base (a uid already taken) on stderr.
  let stepOutput = "";
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null, events: Array<{ error?: string }>) => {
        const failed = error?.message ?? events.find((event) => event.error)?.error;
        if (failed) reject(new Error(`building the sandbox image failed: ${failed}${stepOutput ? `\n${stepOutput.trimEnd()}` : ""}`));
        else resolve();
      },
      (event: { stream?: string; status?: string; error?: string }) => {
        const line = (event.stream ?? event.status ?? "").trim();
        if (line.startsWith("Step ")) stepOutput = "";
        else stepOutput = (stepOutput + (event.stream ?? "")).slice(-MAX_STEP_OUTPUT_CHARS);
        if (line.startsWith("Step ") || event.error) progress(`  ${line || event.error}`);
      },
    );
  });
  progress(`sandbox image ${tag} ready`);
  return tag;
}
