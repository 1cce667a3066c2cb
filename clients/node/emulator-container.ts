// InteractionsEmulatorContainer: the emulator as a Testcontainers module, following the library's own
// modules (a GenericContainer whose start() hands back a started container with what a test needs).
// It runs docker-compose.yml's `emulator` service on its own: the image built from this package when
// missing, the engine's socket mounted (the emulator creates its sandboxes on the same engine), a
// unique EMULATOR_INSTANCE, port 8080 mapped to a free port, and /health as the wait strategy. stop()
// removes the sandboxes it made (everything with its instance label) as well as the container itself,
// without Ryuk: Testcontainers' reaper is an image from a registry, which not every machine can reach.
//
// [choice] One container, not compose's two: the egress proxy runs inside the emulator (its default,
// as with npm start and startEmulator()); sandboxes reach it through their executor's channel to the
// emulator, never over a network, so nothing else needs publishing, and egress faults work.

import { randomBytes } from "node:crypto";
import {
  AbstractStartedContainer,
  GenericContainer,
  getContainerRuntimeClient,
  ImageName,
  type StartedTestContainer,
  type StopOptions,
  type StoppedTestContainer,
  Wait,
} from "testcontainers";
import type Docker from "dockerode";
import { removeInstanceObjects } from "../../server/sandbox/docker/instance-objects.js";
import {
  API_PORT,
  baseUrlOf,
  containerEnvironment,
  LABEL_CONTAINER_OF_INSTANCE,
  LOOPBACK_ADDRESS,
  publishOnLoopbackOnly,
  SOCKET_IN_CONTAINER,
} from "./container-settings.js";
import { ensureEmulatorImage } from "./emulator-image.js";

/** Until the image is known: start() builds or finds it. Never pulled. */
const IMAGE_TO_BE_BUILT = "interactions-emulator:to-be-built";
/** A first start may build the sandbox image on the engine before the emulator listens. */
const DEFAULT_STARTUP_TIMEOUT_MS = 5 * 60_000;
/** docker-compose.yml's stop_grace_period: time to end running interactions and remove the warm pool. */
const DEFAULT_STOP_TIMEOUT_MS = 30_000;

export class InteractionsEmulatorContainer extends GenericContainer {
  private readonly givenImage: string | undefined;
  private apiKey = `test-key-${randomBytes(8).toString("hex")}`;
  private settings: Record<string, string> = {};
  private buildProgress: (line: string) => void = (line) => process.stderr.write(`interactions-emulator: ${line}\n`);

  /** image: an emulator image to run as it is; default docker-compose.yml's, built from this package when missing. */
  constructor(image?: string) {
    super(image ?? IMAGE_TO_BE_BUILT);
    this.givenImage = image;
    this.withExposedPorts(API_PORT)
      .withWaitStrategy(Wait.forHttp("/health", API_PORT, { abortOnContainerExit: true }).forStatusCode(200))
      .withStartupTimeout(DEFAULT_STARTUP_TIMEOUT_MS);
  }

  /** The key handed back as `.apiKey` (any non-empty key is accepted; each key owns its own resources). */
  withApiKey(apiKey: string): this {
    if (apiKey.trim().length === 0) throw new Error("withApiKey(): the key is empty; give any non-empty string");
    this.apiKey = apiKey;
    return this;
  }

  /** Configuration variables from docs/configuration.md, e.g. `{ EMULATOR_TOOL_TIMEOUT_SECONDS: "30" }`; merged over earlier ones. */
  withSettings(settings: Record<string, string>): this {
    this.settings = { ...this.settings, ...settings };
    return this;
  }

  /** Where the image build's progress lines go (only when it is built); default standard error. */
  withBuildProgress(progress: (line: string) => void): this {
    this.buildProgress = progress;
    return this;
  }

  override async start(): Promise<StartedInteractionsEmulatorContainer> {
    const client = await getContainerRuntimeClient();
    const docker = client.container.dockerode;
    const instance = this.settings.EMULATOR_INSTANCE ?? `testcontainers-${randomBytes(5).toString("hex")}`;
    const engineHost = client.info.containerRuntime.host;
    this.withEnvironment(containerEnvironment({ instance, settings: this.settings, engineHost })).withLabels({
      [LABEL_CONTAINER_OF_INSTANCE]: instance,
    });
    // Beside the caller's own bind mounts (withBindMounts() replaces them all).
    const socketMount = `${client.info.containerRuntime.remoteSocketPath}:${SOCKET_IN_CONTAINER}:rw`;
    this.hostConfig.Binds = [...(this.hostConfig.Binds ?? []).filter((bind) => !bind.includes(`:${SOCKET_IN_CONTAINER}`)), socketMount];
    const loopbackOnly = publishOnLoopbackOnly(engineHost);
    if (loopbackOnly) {
      // withExposedPorts() wrote the binding; only its address changes (a fixed host port given stays).
      const key = `${API_PORT}/tcp`;
      const hostPort = this.hostConfig.PortBindings?.[key]?.[0]?.HostPort ?? "0";
      this.hostConfig.PortBindings = { ...this.hostConfig.PortBindings, [key]: [{ HostIp: LOOPBACK_ADDRESS, HostPort: hostPort }] };
    }
    if (this.givenImage === undefined) {
      const tag = await ensureEmulatorImage({ docker, progress: this.buildProgress });
      this.imageName = ImageName.fromString(tag);
      this.createOpts.Image = tag;
    }
    let started: StartedTestContainer;
    try {
      started = await super.start();
    } catch (error) {
      // Testcontainers removes a container that never became ready, not one that failed later on (its
      // ports not found); and the emulator may have made sandboxes already (the warm pool).
      await removeOwnContainer(docker, instance);
      await removeInstanceObjects(docker, instance).catch(() => undefined);
      throw error;
    }
    const apiHost = loopbackOnly ? LOOPBACK_ADDRESS : started.getHost();
    return new StartedInteractionsEmulatorContainer(started, docker, {
      instance,
      apiKey: this.apiKey,
      baseUrl: baseUrlOf(apiHost, started.getMappedPort(API_PORT)),
    });
  }
}

async function removeOwnContainer(docker: Docker, instance: string): Promise<void> {
  const containers = await docker
    .listContainers({ all: true, filters: { label: [`${LABEL_CONTAINER_OF_INSTANCE}=${instance}`] } })
    .catch(() => []);
  for (const container of containers) {
    await docker
      .getContainer(container.Id)
      .remove({ force: true, v: true })
      .catch(() => undefined);
  }
}

export class StartedInteractionsEmulatorContainer extends AbstractStartedContainer {
  /** e.g. http://127.0.0.1:32771 (a remote engine: its host): the SDK's `httpOptions.baseUrl`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The label value (dev.interactions-emulator.instance) on every sandbox this emulator made. */
  readonly instance: string;
  private stopping: Promise<StoppedTestContainer> | null = null;

  /** @internal Made by InteractionsEmulatorContainer.start(), not by its users. */
  constructor(
    started: StartedTestContainer,
    private readonly docker: Docker,
    handed: { instance: string; apiKey: string; baseUrl: string },
  ) {
    super(started);
    this.baseUrl = handed.baseUrl;
    this.apiKey = handed.apiKey;
    this.instance = handed.instance;
  }

  /**
   * Stops the emulator (30 s to end running interactions, as compose gives it), removes its container,
   * then every container, volume and image with its instance label: environments' sandboxes, which the
   * emulator keeps at a shutdown, and fork images. Throws, after trying everything, with what is left.
   * Safe to call twice.
   */
  override stop(options?: Partial<StopOptions>): Promise<StoppedTestContainer> {
    this.stopping ??= (async () => {
      let stopError: unknown = null;
      const stopped = await super.stop({ timeout: DEFAULT_STOP_TIMEOUT_MS, ...options }).catch((error: unknown) => {
        stopError = error;
        return null;
      });
      // Whatever the stop managed, the sandboxes go.
      await removeInstanceObjects(this.docker, this.instance);
      if (stopError || !stopped) throw stopError;
      return stopped;
    })();
    return this.stopping;
  }
}
