// Types of `import { InteractionsEmulatorContainer } from "interactions-sandbox-emulator/testcontainers"`
// (dist/clients/node/index.js, compiled from clients/node/). Generated from clients/node/ by `npm run schemas`
// (tools/testcontainers-declarations.ts): do not edit; change the source and run it.
// test/unit/package-declarations.test.ts fails while this file is stale.

import { AbstractStartedContainer, GenericContainer, type StopOptions, type StoppedTestContainer } from "testcontainers";

export declare class InteractionsEmulatorContainer extends GenericContainer {
    private readonly givenImage;
    private apiKey;
    private settings;
    private buildProgress;
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
    private readonly docker;
    /** e.g. http://127.0.0.1:32771 (a remote engine: its host): the SDK's `httpOptions.baseUrl`. */
    readonly baseUrl: string;
    readonly apiKey: string;
    /** The label value (dev.interactions-emulator.instance) on every sandbox this emulator made. */
    readonly instance: string;
    private stopping;
    /**
     * Stops the emulator (30 s to end running interactions, as compose gives it), removes its container,
     * then every container, volume and image with its instance label: environments' sandboxes, which the
     * emulator keeps at a shutdown, and fork images. Throws, after trying everything, with what is left.
     * Safe to call twice.
     */
    stop(options?: Partial<StopOptions>): Promise<StoppedTestContainer>;
}

/** The repository of the images this module builds: interactions-emulator:<content hash>. */
export declare const EMULATOR_IMAGE_REPOSITORY = "interactions-emulator";

/** On every image this module built, with its content hash: how an older one is told from anyone else's. */
export declare const LABEL_EMULATOR_IMAGE = "dev.interactions-emulator.testcontainers-image";
