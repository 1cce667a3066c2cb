// The request body of POST /{v}/interactions, as the official SDK sends it (docs/wire-protocol.md#the-request-body).
// Unknown fields are tolerated, as the real service does; known ones are checked so that a mistake
// is a 400 naming the field rather than a surprise later.

import { z } from "zod";
import type { Assignable, Without } from "../wire/assignable.js";
import type { CreateInteractionRequestBody } from "../wire/openapi-types.js";
import { recordKeepingKeys } from "../common/own-keys.js";

export const sourceSchema = z.looseObject({
  type: z.string().optional().describe("inline, repository, gcs, …; inline when omitted and content is given"),
  target: z
    .string()
    .optional()
    .describe("Where the source appears: absolute, or relative (from the root when it starts with a folder there, else from /workspace)"),
  content: z.string().optional().describe("Inline content"),
  encoding: z.string().optional().describe('Encoding of inline content: only "base64"'),
  source: z.string().optional().describe("GCS path, repository URL or registry path"),
});
export type SourceInput = z.infer<typeof sourceSchema>;

/**
 * A map in the request (header names, variables, labels), keyed by strings, every key kept as sent:
 * "__proto__" too, which zod's own record would drop without a word (server/common/own-keys.ts).
 */
export function mapOf<T extends z.ZodType>(value: T) {
  return recordKeepingKeys(value);
}

const headerMap = mapOf(z.string());

export const networkSchema = z.union([
  z.literal("disabled"),
  z.looseObject({
    allowlist: z
      .union([
        z.literal("disabled"),
        z.array(
          z.looseObject({
            domain: z.string().min(1).describe('Domain, "*.suffix" or "*"'),
            transform: z.union([headerMap, z.array(headerMap)]).optional(),
            credential: z.string().optional(),
          }),
        ),
      ])
      .optional(),
  }),
]);

const envVarSchema = z.union([z.string(), z.looseObject({ value: z.string().optional(), credential: z.string().optional() })]);

export const environmentObjectSchema = z.looseObject({
  type: z.literal("remote", { error: 'must be "remote", the only environment type' }),
  environment_id: z.string().min(1).optional(),
  sources: z.array(sourceSchema).optional(),
  network: networkSchema.optional(),
  env: mapOf(envVarSchema).optional(),
});
export type EnvironmentInput = z.infer<typeof environmentObjectSchema>;

const contentSchema = z.looseObject({ type: z.string().describe("text, image, audio, document or video") });
const stepOrContentSchema = z.looseObject({ type: z.string() });

/**
 * agent_config as sent. Its `max_total_tokens` is an int64, which the OpenAPI document and the SDK carry as
 * a string ("100000"); the Antigravity agent page's budget examples send a number (50000): accepted, and
 * kept as the document's string, so that the interaction (or agent) echoing it still fits the document.
 */
export const agentConfigSchema = z
  .looseObject({ type: z.string() })
  .transform((config) =>
    typeof config["max_total_tokens"] === "number" ? { ...config, max_total_tokens: String(config["max_total_tokens"]) } : config,
  );

/**
 * The tool types the API errors page lists as supported ("Supported values: …", its example of an
 * invalid_request): the OpenAPI document's Tool types and the page's `filesystem` and `bash`. Another type
 * is a 400 in the page's words; the emulated agent runs code_execution, function and mcp_server tools and
 * echoes the others.
 */
export const TOOL_TYPES = [
  "function",
  "code_execution",
  "mcp_server",
  "filesystem",
  "google_maps",
  "google_search",
  "bash",
  "computer_use",
  "file_search",
  "url_context",
] as const;

export const toolsSchema = z
  .array(z.looseObject({ type: z.string().describe("code_execution, function, mcp_server, …") }))
  .superRefine((tools, context) => {
    tools.forEach((tool, index) => {
      if ((TOOL_TYPES as readonly string[]).includes(tool.type)) return;
      context.addIssue({
        code: "custom",
        path: [index, "type"],
        message: `The value '${tool.type}' is not supported for 'type' at 'tools[${index}]'. Supported values: ${TOOL_TYPES.map((type) => `'${type}'`).join(", ")}.`,
      });
    });
  });

export const createInteractionSchema = z.looseObject({
  agent: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  agent_config: agentConfigSchema.optional(),
  input: z.union([z.string(), contentSchema, z.array(stepOrContentSchema)]).optional(),
  system_instruction: z.string().optional(),
  tools: toolsSchema.optional(),
  environment: z.union([z.string().min(1), environmentObjectSchema]).optional(),
  previous_interaction_id: z.string().min(1).optional(),
  // The token of an interaction that stopped at requires_continuation: this one continues it (docs/api.md#continuation).
  continuation_token: z.string().min(1).optional(),
  // flex starts queued (docs/api.md#statuses); the service's ServiceTier enum.
  service_tier: z.enum(["flex", "standard", "priority"], { error: 'must be "flex", "standard" or "priority"' }).optional(),
  stream: z.boolean().optional(),
  store: z.boolean().optional(),
  background: z.boolean().optional(),
  labels: mapOf(z.string()).optional(),
  // Read when the interaction ends (server/webhooks/interaction-events.ts): checked here so a bad one is a 400 now, not a silent nothing later.
  webhook_config: z
    .looseObject({
      uris: z
        .array(z.string().refine((uri) => URL.canParse(uri), "each URI must be a full URL, like http://127.0.0.1:9000/hook"))
        .max(20, "at most 20 webhook URIs per interaction")
        .optional(),
      user_metadata: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});
export type CreateInteractionRequest = z.infer<typeof createInteractionSchema>;

/**
 * What createInteractionSchema lets through is a CreateInteraction body of the document, agent or model
 * named (server/wire/assignable.ts). Left out: input, agent_config, tools and environment, read here only
 * as far as the run needs (a `type` of any string, `{"allowlist": "disabled"}` as well); the document check
 * (server/http/documented-requests.ts) holds them to the document before this schema runs.
 */
export type CreateInteractionConforms = Assignable<
  Without<CreateInteractionRequest, "input" | "agent_config" | "tools" | "environment"> & ({ agent: string } | { model: string }),
  CreateInteractionRequestBody
>;

/** Request fields the Interaction resource echoes back (docs/wire-protocol.md#echoed-request-fields). */
export const ECHOED_FIELDS = [
  "agent",
  "agent_config",
  "model",
  "environment",
  "tools",
  "system_instruction",
  "previous_interaction_id",
  "generation_config",
  "labels",
  "response_format",
  "response_mime_type",
  "response_modalities",
  "safety_settings",
  "service_tier",
  "webhook_config",
] as const;
