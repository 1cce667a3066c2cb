// Starts the scripted planner for a request, off the event loop when the request brings JSON Schemas
// (docs/security.md#bounded-work). Compiling a schema with Ajv and using it is bounded (the schema's
// size, the minimal answer's budget) but can still take long for a large schema that the bounds allow;
// on the event loop that would stall every other caller, /health included. So such a request is read
// in a worker thread with a deadline (EMULATOR_SCHEMA_TIMEOUT_SECONDS): one that passes it is a 400
// naming its schemas and the setting, and the worker is replaced. A request without schemas is read
// here, synchronously: its reading is linear in the input (docs/security.md#large-requests).

import { InternalError } from "../../common/errors.js";
import { WorkerDeadlineError, WorkerFailedError, WorkerPool } from "../../common/worker-pool.js";
import type { PlannerState } from "../../agent/planner.js";
import { DEFAULT_SCHEMA_BOUNDS, type SchemaBounds } from "./schema-bounds.js";
import { rememberedRuns } from "./scripted-planner-state.js";
import {
  type ReadablePlan,
  ScriptedPlanner,
  type ScriptedPlannerOptions,
  type ScriptedPlannerStart,
  startScriptedPlanner,
} from "./scripted-planner.js";

export interface SchemaWorkRequest {
  inputText: string;
  previous: PlannerState | null | undefined;
  options: ScriptedPlannerOptions;
}

export type SchemaWorkAnswer =
  | { kind: "invalid"; message: string; field?: string }
  | { kind: "ready"; plan: ReadablePlan; continued: boolean; fixedAnswer?: string }
  /** A bug in the emulator's own reading: a 500, not the request's fault. */
  | { kind: "failed"; message: string };

/** Two workers at most: this machine class has two cores, and the event loop keeps one. */
const POOL_SIZE = 2;
/** A worker's heap: a schema whose work needs more is refused instead of growing the server. */
const WORKER_HEAP_MB = 512;

let pool: WorkerPool | undefined;

function schemaPool(): WorkerPool {
  pool ??= new WorkerPool({ script: new URL("./schema-worker.js", import.meta.url), size: POOL_SIZE, maxHeapMb: WORKER_HEAP_MB });
  return pool;
}

/** The request fields that hold JSON Schemas: where the work of a request goes to a worker. */
export function schemaFields(options: ScriptedPlannerOptions): string[] {
  const fields: string[] = [];
  const format = options.responseFormat;
  if (format?.kind === "json" && format.schema !== undefined) fields.push(format.where);
  for (const declaration of options.functions ?? []) {
    if (declaration.parameters !== undefined && declaration.parameters !== null) fields.push(`tools[${declaration.toolIndex}].parameters`);
  }
  return fields;
}

/** startScriptedPlanner, with the schema work in a worker under the bounds' deadline. */
export async function startPlanner(
  inputText: string,
  previous: PlannerState | null | undefined,
  options: ScriptedPlannerOptions,
): Promise<ScriptedPlannerStart> {
  const fields = schemaFields(options);
  if (fields.length === 0) return startScriptedPlanner(inputText, previous, options);
  const bounds: SchemaBounds = options.schemaBounds ?? DEFAULT_SCHEMA_BOUNDS;
  let answer: SchemaWorkAnswer;
  try {
    answer = await schemaPool().run<SchemaWorkAnswer>({ inputText, previous, options } satisfies SchemaWorkRequest, bounds.timeoutMs);
  } catch (error) {
    return refusal(error, fields, bounds);
  }
  if (answer.kind === "failed") {
    console.error("reading a request's input in the schema worker failed:", answer.message);
    throw new InternalError("reading the request's input failed (the emulator's log has the details)");
  }
  if (answer.kind === "invalid") return answer;
  return { kind: "ready", planner: new ScriptedPlanner(answer.plan, rememberedRuns(previous), answer.continued, answer.fixedAnswer) };
}

function refusal(error: unknown, fields: string[], bounds: SchemaBounds): ScriptedPlannerStart {
  const named = fields.join(", ");
  const [field] = fields;
  if (error instanceof WorkerDeadlineError) {
    return {
      kind: "invalid",
      ...(fields.length === 1 && field !== undefined ? { field } : {}),
      message: `the JSON Schema${fields.length === 1 ? "" : "s"} of this request (${named}) took longer than ${bounds.timeoutMs / 1000} s to compile and check (EMULATOR_SCHEMA_TIMEOUT_SECONDS), so the request is too costly; make ${fields.length === 1 ? "it" : "them"} smaller or simpler, or raise EMULATOR_SCHEMA_TIMEOUT_SECONDS`,
    };
  }
  if (error instanceof WorkerFailedError && isOutOfMemory(error)) {
    return {
      kind: "invalid",
      ...(fields.length === 1 && field !== undefined ? { field } : {}),
      message: `the JSON Schema${fields.length === 1 ? "" : "s"} of this request (${named}) needed more than the ${WORKER_HEAP_MB} MiB the emulator gives one request's schemas, so the request is too costly; make ${fields.length === 1 ? "it" : "them"} smaller or simpler`,
    };
  }
  throw new InternalError(`checking the request's JSON Schemas failed: ${error instanceof Error ? error.message : String(error)}`);
}

function isOutOfMemory(error: WorkerFailedError): boolean {
  return (error.cause as { code?: unknown } | undefined)?.code === "ERR_WORKER_OUT_OF_MEMORY";
}
