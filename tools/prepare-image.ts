// `npm run image` (and the first step of `npm test`): build whatever the sandbox image needs, with
// progress, without starting the server.

import { loadConfig } from "../server/common/config.js";
import { dockerRuntimeFor } from "../server/emulator.js";

const runtime = dockerRuntimeFor(loadConfig());
const health = await runtime.health();
if (!health.ok) {
  console.error(health.detail);
  process.exit(1);
}
await runtime.prepare((line) => console.log(line));
console.log("sandbox image ready");
