// Request bodies are read with the API layer's zod helpers (api/zod-issues.ts), re-exported here for the routes.
export { fieldPath, parseOrThrow, toInvalidArgument } from "../api/zod-issues.js";
