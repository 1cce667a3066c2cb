// `npm start`: serve the emulator until interrupted.

import { loadConfig } from "./common/config.js";
import { startEmulator } from "./emulator.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const emulator = await startEmulator(config);
  console.log(`Interactions emulator listening on ${emulator.url} (data: ${config.EMULATOR_DATA_DIR})`);
  const stop = (signal: string) => {
    console.log(`${signal}: shutting down; sandboxes keep running and are found again at the next start`);
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(`emulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
