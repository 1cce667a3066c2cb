// The compiled entry of `npx interactions-emulator` (bin/interactions-emulator.mjs imports it).

import { runCli } from "./run.js";

process.exitCode = await runCli(process.argv.slice(2));
