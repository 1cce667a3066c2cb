// Types of `import { InteractionsEmulatorContainer } from "interactions-sandbox-emulator/testcontainers"`
// (dist/clients/node/index.js, compiled from clients/node/). Written by hand (unlike types/index.d.ts, which
// is generated: these classes span several files); test/unit/testcontainers-settings.test.ts checks that it
// and the implementation agree.

import { AbstractStartedContainer, GenericContainer, type StopOptions, type StoppedTestContainer } from "testcontainers";

/** The repository of the images this module builds: interactions-emulator:<content hash>. */
export declare const EMULATOR_IMAGE_REPOSITORY: "interactions-emulator";
/** The label on those images (its value: the content hash). */
export declare const LABEL_EMULATOR_IMAGE: "dev.interactions-emulator.testcontainers-image";

/**
 * The emulator in a container: docker-compose.yml's image (built from this package when missing), the
 * engine's socket mounted, a unique EMULATOR_INSTANCE, port 8080 mapped, /health waited for.
 */
export declare class InteractionsEmulatorContainer extends GenericContainer {
  /** image: an emulator image to run as it is; default docker-compose.yml's, built from this package when missing. */
  constructor(image?: string);
  /** The key handed back as `.apiKey` (any non-empty key is accepted; each key owns its own resources). */
  withApiKey(apiKey: string): this;
  /** Configuration variables from docs/configuration.md, e.g. `{ EMULATOR_TOOL_TIMEOUT_SECONDS: "30" }`; merged over earlier ones. */
  withSettings(settings: Record<string, string>): this;
  /** Where the image build's progress lines go (only when it is built); default standard error. */
  withBuildProgress(progress: (line: string) => void): this;
  start(): Promise<StartedInteractionsEmulatorContainer>;
}

export declare class StartedInteractionsEmulatorContainer extends AbstractStartedContainer {
  /** e.g. http://127.0.0.1:32771 (a remote engine: its host): the SDK's `httpOptions.baseUrl`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The label value (dev.interactions-emulator.instance) on every sandbox this emulator made. */
  readonly instance: string;
  /** Stops the emulator, removes its container and every sandbox, volume and image with its instance label. Safe to call twice. */
  stop(options?: Partial<StopOptions>): Promise<StoppedTestContainer>;
}
