// While the emulator runs it renews its lease on the engine and removes what emulators that are gone for
// good left behind, every third of the lease: a lease outlives two missed renewals (an engine that
// hiccups), and another emulator's leftovers go within about a lease and a third of its last renewal.

import type { SandboxRuntime } from "./runtime.js";

export interface LeaseKeeper {
  /** Stops renewing and ends the lease (a clean shutdown). */
  stop(): Promise<void>;
}

export async function keepLease(runtime: SandboxRuntime, leaseMs: number, log: (line: string) => void): Promise<LeaseKeeper> {
  if (!runtime.renewLease) return { stop: async () => undefined };
  let failing = false;
  const tick = async () => {
    try {
      await runtime.renewLease?.();
      const sweep = await runtime.removeAbandoned?.();
      if (sweep && sweep.instances.length > 0) {
        log(
          `removed what stopped emulators left behind (${sweep.instances.join(", ")}: their data folders are gone): ` +
            `${sweep.containers} container(s), ${sweep.volumes} volume(s), ${sweep.images} image(s)`,
        );
      }
      for (const failure of sweep?.failures ?? []) log(`could not remove a stopped emulator's leftover ${failure}; trying again later`);
      failing = false;
    } catch (error) {
      // Said once per outage, not at every tick; the next tick tries again.
      if (!failing) log(`could not renew the sandbox lease or look for abandoned sandboxes: ${(error as Error).message}`);
      failing = true;
    }
  };
  await tick();
  let running: Promise<void> | null = null;
  const timer = setInterval(
    () => {
      running ??= tick().finally(() => (running = null));
    },
    Math.max(200, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
      await runtime.dropLease?.().catch(() => undefined);
    },
  };
}
