// The set-up every engine fault suite (test/fault/) shares: registered as the file's before and after
// hooks, an emulator process started (test/support/emulator-process.ts), reaching the machine's Docker
// engine through a relay the test controls when it names one (DOCKER_HOST=<relay>), with an SDK client
// for it; afterwards the relay lets everything through again, the emulator is destroyed with every
// sandbox it made, and the relay is closed. The real dockerd is never touched.

import { after, before } from "node:test";
import type { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "./emulator-process.js";
import { sdk } from "./fault-harness.js";

/** What the emulator reaches the engine through: docker-relay.ts (a socket) or docker-http-relay.ts (HTTP). */
export interface EngineRelay {
  dockerHost: string;
  /** Ends whatever fault the test put in the way (paused, stalled or hung): the engine answers again. */
  release(): void;
  close(): Promise<void>;
}

/**
 * Filled in by the file's before hook. A test that restarts the emulator assigns the new process and
 * client here, so that the after hook destroys the one running then.
 */
export interface FaultEmulator<R> {
  relay: R;
  emulator: EmulatorProcess;
  ai: GoogleGenAI;
}

/** The emulator, started with `env` (and DOCKER_HOST pointed at the relay, when `relay` starts one). */
export function useFaultEmulator<R extends EngineRelay>(options: {
  relay?: () => Promise<R>;
  env?: Record<string, string>;
  /**
   * What the file needs made before its tests (an environment to break), once the emulator answers.
   * Here, not in a before hook of the file's own: node 20 starts a file's top-level before hooks together.
   */
  prepare?: (fixture: FaultEmulator<R>) => Promise<void>;
}): FaultEmulator<R> {
  const fixture: Partial<FaultEmulator<R>> = {};
  before(async () => {
    const relay = options.relay ? await options.relay() : undefined;
    fixture.relay = relay;
    fixture.emulator = await startEmulatorProcess({ ...(relay ? { DOCKER_HOST: relay.dockerHost } : {}), ...options.env });
    fixture.ai = sdk(fixture.emulator);
    await options.prepare?.(fixture as FaultEmulator<R>);
  });
  after(async () => {
    fixture.relay?.release();
    await fixture.emulator?.destroy();
    await fixture.relay?.close();
  });
  return fixture as FaultEmulator<R>;
}
