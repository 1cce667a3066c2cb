// The worker thread behind schema-work.ts: it reads one request's input into a plan with the scripted
// planner, which is where a request's JSON Schemas are compiled and used (function arguments checked
// against their declared parameters, a JSON answer checked or built from its schema). The plan and the
// fixed answer go back as plain data; the main thread makes the planner from them.

import { parentPort } from "node:worker_threads";
import { loadSchemaEngine } from "../../agent/json-schema-engine.js";
import { WORKER_READY } from "../../common/worker-pool.js";
import type { SchemaWorkAnswer, SchemaWorkRequest } from "./schema-work.js";
import { startScriptedPlanner } from "./scripted-planner.js";

parentPort?.on("message", (request: SchemaWorkRequest) => {
  parentPort?.postMessage(answer(request));
});
// Ajv loads on first use in the server (load-on-first-use.ts); here, before the worker says it is
// ready, since a job's deadline counts from then and loading is the worker's start, not a request's work.
loadSchemaEngine();
parentPort?.postMessage(WORKER_READY);

function answer(request: SchemaWorkRequest): SchemaWorkAnswer {
  try {
    const started = startScriptedPlanner(request.inputText, request.previous, request.options);
    if (started.kind === "invalid") return started;
    const { planner } = started;
    return {
      kind: "ready",
      plan: planner.plan,
      continued: planner.continued,
      ...(planner.fixedAnswer !== undefined ? { fixedAnswer: planner.fixedAnswer } : {}),
    };
  } catch (error) {
    return { kind: "failed", message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}
