// `npm run image -- --save FILE`: every image deploy/swarm.yml needs, in one tar for `docker load` on
// each node of a cluster without a registry: the sandbox image (as `npm run image` prepared it) and the
// emulator's own image (server/Dockerfile, the sources and dist/ inside: a swarm node has no checkout),
// built when missing. The tar is written beside FILE and renamed, so FILE is either the whole of it or
// untouched; a second run writes the same images again.

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import Docker from "dockerode";
import { loadConfig } from "../server/common/config.js";
import { ensureSandboxImage } from "../server/sandbox/docker/image.js";
import { ensureEmulatorImage } from "../clients/node/emulator-image.js";

const HEARTBEAT_MS = 5000;
const MiB = 1024 * 1024;

/** The two images deploy/swarm.yml names, by the variables it reads. */
export interface StackImages {
  EMULATOR_IMAGE: string;
  SANDBOX_IMAGE: string;
}

export async function stackImages(docker: Docker, progress: (line: string) => void): Promise<StackImages> {
  const config = loadConfig(process.env);
  const sandbox = await ensureSandboxImage(
    docker,
    { fixedImage: config.EMULATOR_SANDBOX_IMAGE, baseImage: config.EMULATOR_BASE_IMAGE, offlineBase: config.EMULATOR_OFFLINE_BASE },
    progress,
  );
  const emulator = await ensureEmulatorImage({ docker, progress });
  return { EMULATOR_IMAGE: emulator, SANDBOX_IMAGE: sandbox };
}

/** `docker save -o` into a file beside `file`, with its growth shown, then renamed onto `file`. */
export async function saveImages(images: string[], file: string, progress: (line: string) => void): Promise<void> {
  const target = path.resolve(file);
  const partial = `${target}.partial-${process.pid}`;
  const started = Date.now();
  const size = () => fs.statSync(partial, { throwIfNoEntry: false })?.size ?? 0;
  const heartbeat = setInterval(
    () => progress(`  … ${Math.round(size() / MiB)} MiB written, ${Math.round((Date.now() - started) / 1000)} s`),
    HEARTBEAT_MS,
  );
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn("docker", ["save", "-o", partial, ...images], { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString("utf8")).slice(-4000);
      });
      child.once("error", (error) =>
        reject(new Error(`docker could not be run (${error.message}): the images are saved with the docker command line`)),
      );
      child.once("close", (status) =>
        status === 0 ? resolve() : reject(new Error(`docker save ${images.join(" ")} failed (exit ${status}): ${stderr.trim()}`)),
      );
    });
    fs.renameSync(partial, target);
  } finally {
    clearInterval(heartbeat);
    fs.rmSync(partial, { force: true });
  }
  progress(`${target}: ${Math.round(fs.statSync(target).size / MiB)} MiB in ${Math.round((Date.now() - started) / 1000)} s`);
}

async function main(file: string | undefined): Promise<void> {
  if (!file || file.startsWith("-")) throw new Error("usage: npm run image -- --save FILE (the tar to write)");
  const directory = path.dirname(path.resolve(file));
  if (!fs.statSync(directory, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`--save ${file}: there is no folder ${directory}`);
  const progress = (line: string) => console.log(line);
  const images = await stackImages(new Docker(), progress);
  progress(`saving ${images.EMULATOR_IMAGE} and ${images.SANDBOX_IMAGE} into ${file}…`);
  await saveImages([images.EMULATOR_IMAGE, images.SANDBOX_IMAGE], file, progress);
  console.log(
    [
      "",
      `On every node: docker load -i ${file}. Then, on a manager (docs/scale-out.md#deploying-the-stack):`,
      `  export EMULATOR_IMAGE=${images.EMULATOR_IMAGE} SANDBOX_IMAGE=${images.SANDBOX_IMAGE} EMULATOR_API_KEYS=<keys>`,
      "  docker stack deploy --resolve-image=never -c deploy/swarm.yml interactions",
    ].join("\n"),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv[2]).catch((error: Error) => {
    console.error(`error: ${error.message}`);
    process.exit(1);
  });
}
