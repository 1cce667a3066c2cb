// The request body of POST /{v}/environments (docs/wire-protocol.md#environment-and-file-resources):
// an interaction's environment object without `type` and `environment_id`, or a fork of another
// environment (`from_environment`).

import { z } from "zod";
import type { Assignable, Without } from "../wire/assignable.js";
import { environmentObjectSchema, networkSchema, sourceSchema } from "./create-interaction.js";
import type { CreateEnvironmentRequestBody } from "../wire/openapi-types.js";
import { idOf } from "./resource-names.js";

export const createEnvironmentSchema = z.looseObject({
  from_environment: z.string().min(1).optional().describe('"environments/{id}" or "{id}": copy that environment'),
  sources: z.array(sourceSchema).optional(),
  network: networkSchema.optional(),
  env: environmentObjectSchema.shape.env,
});
export type CreateEnvironmentRequest = z.infer<typeof createEnvironmentSchema>;

/**
 * What the schema lets through is a CreateEnvironment body of the document (server/wire/assignable.ts).
 * Left out: sources and network, read here loosely (a source's type as any string, `{"allowlist":
 * "disabled"}` too) after the document check (server/http/documented-requests.ts) held them to the document.
 */
export type CreateEnvironmentConforms = Assignable<Without<CreateEnvironmentRequest, "sources" | "network">, CreateEnvironmentRequestBody>;

/** "environments/env_x" and "env_x" both name env_x (the SDK and the REST forms use both). */
export function environmentIdOf(name: string): string {
  return idOf("environments", name);
}
