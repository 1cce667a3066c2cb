// Types of the package's entry point, `import { startEmulator } from "interactions-sandbox-emulator"`
// (dist/server/embed.js). Generated from server/embed.ts by `npm run schemas` (tools/package-declarations.ts):
// do not edit; change embed.ts and run it. test/unit/package-declarations.test.ts fails while this file is stale.

export interface StartEmulatorOptions {
    /** TCP port; default 0, a free one. */
    port?: number;
    /** Address to bind; default 127.0.0.1. */
    host?: string;
    /** The API key to hand back (any non-empty key is accepted, and each key owns its own resources); default a random one. */
    apiKey?: string;
    /** Data folder; default a new temporary one, removed by stop(). A folder given here is kept. */
    dataDir?: string;
    /** More configuration variables (docs/configuration.md), e.g. `{ EMULATOR_TOOL_TIMEOUT_SECONDS: "30" }`. */
    settings?: Record<string, string>;
    /** Progress lines (the sandbox image build on a first run, the data folder); default: not shown. */
    log?: (line: string) => void;
    /**
     * A state file (`interactions-emulator state export`, docs/state-snapshots.md) imported for `apiKey`
     * before the emulator is handed back: its path, or the path and the passphrase its secrets were sealed
     * with. A file that cannot be imported stops the emulator and rejects with the reason.
     */
    state?: string | {
        file: string;
        passphrase?: string;
    };
}
export interface EmbeddedEmulator {
    /** e.g. http://127.0.0.1:43567: the SDK's `httpOptions.baseUrl`. */
    baseUrl: string;
    apiKey: string;
    dataDir: string;
    /** The label value on everything this emulator made on the Docker engine. */
    instance: string;
    /** Stops the emulator and removes every sandbox it made and (unless given) its data folder. Safe to call twice. */
    stop(): Promise<void>;
}
/**
 * Starts the emulator in this process, on a free port with a throwaway data folder. Needs a Docker
 * engine; the sandbox image is built on first use (pass `log` to see its progress).
 */
export declare function startEmulator(options?: StartEmulatorOptions): Promise<EmbeddedEmulator>;
