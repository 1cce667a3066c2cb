// `node dist/server/main.js`: serve the emulator until interrupted (serve.ts; `npm start` runs the same
// after its checks, see server/bootstrap/cli.mjs).

import { serveOrExit } from "./serve.js";

serveOrExit();
