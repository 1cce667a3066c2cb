// docker-compose.yml brought up the way a user does (`up --build`), under a project name of its own, on
// a free host port, with an override file the test writes (an upstream for egress), and the Docker
// objects it leaves behind counted. Compose v2 (`docker compose`) is used where present, else
// docker-compose 1.29 (Debian's; server/bootstrap/ensure-compose.sh installs it).

import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { projectRoot } from "../../server/common/paths.js";
import { imageExists as engineHasImage } from "../../server/sandbox/docker/image.js";
import { LABEL_INSTANCE } from "../../server/sandbox/docker/labels.js";

/** Label of the Dockerfile's build stages (server/Dockerfile), which the engine keeps as untagged build cache. */
export const BUILD_STAGE_LABEL = "dev.interactions-emulator.compose-build";
/** The dependency stage kept tagged between runs, so that only the first run compiles the native modules. */
const DEPS_CACHE_REPOSITORY = "interactions-emulator-compose-deps";
const COMPOSE_PROJECT_LABEL = "com.docker.compose.project";

export function composeCommand(): string[] {
  if (spawnSync("docker", ["compose", "version"], { stdio: "ignore" }).status === 0) return ["docker", "compose"];
  if (spawnSync("docker-compose", ["version"], { stdio: "ignore" }).status === 0) return ["docker-compose"];
  throw new Error(
    "neither `docker compose` nor `docker-compose` is installed: npm test installs docker-compose from Debian's packages when run as root (server/bootstrap/ensure-compose.sh); elsewhere install one",
  );
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Lines worth showing while a build runs: its steps (classic builder and BuildKit), the npm ci heartbeat, containers starting. */
const PROGRESS_LINE =
  /^(Step \d+\/\d+ : |#\d+ \[|Building |Successfully |Creating |Starting |Recreating |\s*… |building |Node\.js image |\s*node v)/;

/** Runs argv to its end, showing progress lines; rejects with the output's tail if it fails. */
export function runShown(argv: string[], env: NodeJS.ProcessEnv, progress: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: projectRoot, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let partial = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      output += text;
      const lines = (partial + text).split(/\r?\n/);
      partial = lines.pop() ?? "";
      for (const line of lines) if (PROGRESS_LINE.test(line)) progress(line.slice(0, 160));
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", reject);
    child.once("close", (status) => {
      if (status === 0) resolve(output);
      else reject(new Error(`${argv.join(" ")} failed (exit ${status}):\n${output.slice(-6000)}`));
    });
  });
}

export interface ComposeStackOptions {
  /** Variables for the compose file (EMULATOR_*), over the ones the stack sets itself. */
  env: Record<string, string>;
  /** An override file's content (JSON, which is YAML), merged over docker-compose.yml. */
  override?: object;
  progress: (line: string) => void;
}

export interface ComposeStack {
  project: string;
  url: string;
  /** The NODE_IMAGE the services were built on. */
  nodeImage: string;
  /** How long `up --build` took, and the deps cache build before it. */
  timings: { depsCacheMs: number; upMs: number };
  compose(args: string[]): Promise<string>;
  logs(service: string): Promise<string>;
  /** `down -v --rmi local`. */
  down(): Promise<void>;
  /** What is left on the engine of this project and of the emulator instance it ran. */
  leftovers(): Promise<Leftovers>;
  /** Removes whatever is left (after a failed run), and the override file. */
  cleanUp(): Promise<void>;
}

export interface Leftovers {
  containers: string[];
  volumes: string[];
  networks: string[];
  images: string[];
}

const docker = new Docker();

/** Builds (the dependency stage first, tagged, as the cache later runs start from) and starts the stack; resolves once /health answers. */
export async function startComposeStack(options: ComposeStackOptions): Promise<ComposeStack> {
  const command = composeCommand();
  const project = `iemucompose${randomBytes(4).toString("hex")}`;
  const hostPort = await freePort();
  const nodeImage = process.env.NODE_IMAGE ?? "interactions-emulator-node:local";
  const overrideDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-compose-"));
  const files = ["-f", path.join(projectRoot, "docker-compose.yml")];
  if (options.override) {
    fs.writeFileSync(path.join(overrideDir, "override.yml"), JSON.stringify(options.override, null, 2));
    files.push("-f", path.join(overrideDir, "override.yml"));
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_IMAGE: nodeImage,
    EMULATOR_HOST_PORT: String(hostPort),
    EMULATOR_INSTANCE: project,
    EMULATOR_PROXY_SECRET: randomBytes(24).toString("hex"),
    ...options.env,
  };
  const compose = (args: string[]) => runShown([...command, "-p", project, ...files, ...args], env, options.progress);
  let downed = false;

  const stack: ComposeStack = {
    project,
    url: `http://127.0.0.1:${hostPort}`,
    nodeImage,
    timings: { depsCacheMs: 0, upMs: 0 },
    compose,
    logs: (service) => compose(["logs", "--no-color", service]),
    down: async () => {
      await compose(["down", "-v", "--rmi", "local", "--remove-orphans"]);
      downed = true;
    },
    leftovers: () => leftoversOf(project),
    cleanUp: async () => {
      if (!downed) await compose(["down", "-v", "--rmi", "local", "--remove-orphans"]).catch(() => undefined);
      await removeLeftovers(project);
      fs.rmSync(overrideDir, { recursive: true, force: true });
    },
  };

  try {
    if (!process.env.NODE_IMAGE) {
      // The image the compose file builds FROM by default, as npm start / npm run image make it.
      await runShown(
        ["bash", path.join(projectRoot, "server", "bootstrap", "build-node-image.sh")],
        { ...process.env, NODE_BINARY: process.execPath },
        options.progress,
      );
    }
    let started = Date.now();
    await buildDepsCache(nodeImage, options.progress);
    stack.timings.depsCacheMs = Date.now() - started;
    started = Date.now();
    await compose(["up", "--build", "-d"]);
    await waitForHealth(stack, compose);
    stack.timings.upMs = Date.now() - started;
    return stack;
  } catch (error) {
    await stack.cleanUp().catch(() => undefined);
    throw error;
  }
}

/**
 * The Dockerfile's dependency stage (npm ci, with better-sqlite3 and re2 compiled from source: minutes),
 * tagged by what it is made of. `down --rmi local` removes the stack's images and with them every layer
 * only they use, so without this tag each run would compile again; the build that follows finds these
 * layers as its cache. One tag is kept: older ones (another lock file, Dockerfile or base) are removed.
 */
export async function buildDepsCache(
  nodeImage: string,
  progress: (line: string) => void,
  options: { removeOlder?: boolean } = {},
): Promise<void> {
  const nodeImageId = (await docker.getImage(nodeImage).inspect()).Id;
  const hash = createHash("sha256").update(nodeImageId);
  for (const file of ["server/Dockerfile", "package.json", "package-lock.json"]) hash.update(fs.readFileSync(path.join(projectRoot, file)));
  const tag = `${DEPS_CACHE_REPOSITORY}:${hash.digest("hex").slice(0, 16)}`;
  await runShown(
    ["docker", "build", "--target", "deps", "--build-arg", `NODE_IMAGE=${nodeImage}`, "-t", tag, "-f", "server/Dockerfile", "."],
    process.env,
    progress,
  );
  // The Testcontainers test keeps other tags: another worktree's compose test may be building on one.
  if (options.removeOlder === false) return;
  for (const image of await docker.listImages({ filters: { reference: [DEPS_CACHE_REPOSITORY] } })) {
    for (const other of image.RepoTags ?? []) {
      if (other !== tag)
        await docker
          .getImage(other)
          .remove()
          .catch(() => undefined);
    }
  }
}

async function waitForHealth(stack: ComposeStack, compose: (args: string[]) => Promise<string>): Promise<void> {
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    if (await answersHealth(stack.url)) return;
    const ids = (await compose(["ps", "-q", "emulator"])).trim();
    const state = ids ? (await docker.getContainer(ids.split("\n")[0]!).inspect()).State : null;
    if (state && !state.Running)
      throw new Error(`the emulator container exited (${state.ExitCode}):\n${await compose(["logs", "--no-color"])}`);
    if (Date.now() > deadline)
      throw new Error(`the emulator did not answer /health within 5 minutes:\n${await compose(["logs", "--no-color"])}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * Until the emulator listens, the engine's port forwarder accepts the connection and holds it unanswered,
 * and an undici socket does not keep Node's event loop alive: the request is bounded by a timer that
 * does (AbortSignal.timeout's does not), or the test process would end with the promise pending.
 */
async function answersHealth(url: string): Promise<boolean> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 3000);
  try {
    return (await fetch(`${url}/health`, { signal: controller.signal })).ok;
  } catch {
    // Not listening yet: the emulator prepares the sandbox image before it listens.
    return false;
  } finally {
    clearTimeout(timer);
  }
}

async function leftoversOf(project: string): Promise<Leftovers> {
  const ofProject = { label: [`${COMPOSE_PROJECT_LABEL}=${project}`] };
  const ofInstance = { label: [`${LABEL_INSTANCE}=${project}`] };
  const [projectContainers, sandboxes, projectVolumes, sandboxVolumes, networks, images] = await Promise.all([
    docker.listContainers({ all: true, filters: ofProject }),
    docker.listContainers({ all: true, filters: ofInstance }),
    docker.listVolumes({ filters: ofProject }),
    docker.listVolumes({ filters: ofInstance }),
    docker.listNetworks({ filters: ofProject }),
    docker.listImages(),
  ]);
  return {
    containers: [...projectContainers, ...sandboxes].map((container) => container.Names?.[0] ?? container.Id),
    volumes: [...(projectVolumes.Volumes ?? []), ...(sandboxVolumes.Volumes ?? [])].map((volume) => volume.Name),
    networks: networks.map((network) => network.Name),
    // Compose v1 names built images <project>_<service>, v2 <project>-<service>.
    images: images.flatMap((image) =>
      (image.RepoTags ?? []).filter((tag) => tag.startsWith(`${project}_`) || tag.startsWith(`${project}-`)),
    ),
  };
}

async function removeLeftovers(project: string): Promise<void> {
  const left = await leftoversOf(project);
  const quietly = (removal: Promise<unknown>) => removal.catch(() => undefined);
  for (const name of left.containers) await quietly(docker.getContainer(name.replace(/^\//, "")).remove({ force: true, v: true }));
  for (const name of left.volumes) await quietly(docker.getVolume(name).remove());
  for (const name of left.networks) await quietly(docker.getNetwork(name).remove());
  for (const tag of left.images) await quietly(docker.getImage(tag).remove());
}

/** IDs of the untagged images of server/Dockerfile's build stages (the engine's build cache). */
export async function buildStageImages(): Promise<Set<string>> {
  const images = await docker.listImages({ filters: { dangling: ["true"], label: [BUILD_STAGE_LABEL] } });
  return new Set(images.map((image) => image.Id));
}

/** The sandbox images on the engine, by tag. */
export async function sandboxImageTags(): Promise<Set<string>> {
  const images = await docker.listImages({ filters: { reference: ["interactions-emulator-sandbox"] } });
  return new Set(images.flatMap((image) => image.RepoTags ?? []));
}

export async function removeImage(name: string): Promise<void> {
  await docker.getImage(name).remove();
}

export function imageExists(name: string): Promise<boolean> {
  return engineHasImage(docker, name);
}
