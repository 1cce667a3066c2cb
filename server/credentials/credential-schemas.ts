// The Credential resource as the official SDK sends it (CredentialCreateParams in @google/genai 3.3):
// the client picks the id, `type` selects the shape, and secret fields are write-only.

import { z } from "zod";
import { whyNotInjectable } from "../../proxy/index.js";
import type { Assignable, Without } from "../wire/assignable.js";
import type { CreateCredentialRequestBody, UpdateCredentialRequestBody } from "../wire/openapi-types.js";

const credentialId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, "1-128 letters, digits, '.', '_' or '-', starting with a letter or digit")
  .describe(
    "Chosen by the client (a UUID is generated when absent, as the credentials page says); names the credential in allowlist entries and env references",
  );

// The egress proxy injects the token into this header, so it must be one the proxy may inject: the rule
// is the proxy's own (header-rules.ts), checked here so the request is refused with the reason, instead
// of being stored and then making every connection of the environments that use it fail.
const headerName = z.string().superRefine((name, context) => {
  const notInjectable = whyNotInjectable(name);
  if (notInjectable !== null) {
    context.addIssue({
      code: "custom",
      message: `"${name}" cannot carry a credential: it ${notInjectable}. Name an ordinary request header (default Authorization)`,
    });
  }
});

export const bearerTokenSchema = z.looseObject({
  type: z.literal("bearer_token"),
  id: credentialId.optional(),
  token: z.string().min(1).describe("The static bearer token (write-only)"),
  header_name: headerName.optional().describe("Header to inject into; default Authorization"),
  prefix: z.string().optional().describe('Prepended to the token with a space; default "Bearer", "" for none'),
});

export const environmentVariableSchema = z.looseObject({
  type: z.literal("environment_variable"),
  id: credentialId.optional(),
  value: z.string().min(1).describe("The secret value (write-only)"),
  injection_location: z.union([z.enum(["header", "query", "body"]), z.array(z.enum(["header", "query", "body"])).min(1)]),
  trusted_domains: z.array(z.string().min(1)).optional(),
});

// OAuth2Config and OAuth2UpdateConfig (the SDK's and the OpenAPI document's): where the token is
// refreshed, and the scopes asked for. Stored and shown; the egress proxy refreshes the access token with
// them (proxy/oauth2-tokens.ts).
const oauth2TokenUrl = z.string().min(1);
const oauth2Scopes = z.array(z.string().min(1));

export const oauth2Schema = z.looseObject({
  type: z.literal("oauth2"),
  id: credentialId.optional(),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  refresh_token: z.string().min(1),
  token_url: oauth2TokenUrl.optional(),
  scopes: oauth2Scopes.optional(),
});

export const createCredentialSchema = z.discriminatedUnion("type", [bearerTokenSchema, environmentVariableSchema, oauth2Schema], {
  error: 'type must be "bearer_token", "environment_variable" or "oauth2"',
});
export type CreateCredentialRequest = z.infer<typeof createCredentialSchema>;
/**
 * What the schema lets through is a CreateCredential body of the document (server/wire/assignable.ts).
 * Left out: an oauth2 credential's token_url, which the document requires and this schema does not: the
 * document check (server/http/documented-requests.ts) refuses a body without it first; only with
 * EMULATOR_LOOSE does one reach the route (and the proxy then has no token URL to refresh at).
 */
export type CreateCredentialConforms = Assignable<
  Without<CreateCredentialRequest, "token_url">,
  Without<CreateCredentialRequestBody, "token_url">
>;

/** PATCH: any of the create fields but id and type; `update_mask` (query) may name which apply. */
export const updateCredentialSchema = z.looseObject({
  token: z.string().min(1).optional(),
  header_name: headerName.optional(),
  prefix: z.string().optional(),
  value: z.string().min(1).optional(),
  injection_location: z.union([z.enum(["header", "query", "body"]), z.array(z.enum(["header", "query", "body"])).min(1)]).optional(),
  trusted_domains: z.array(z.string().min(1)).optional(),
  client_id: z.string().min(1).optional(),
  client_secret: z.string().min(1).optional(),
  refresh_token: z.string().min(1).optional(),
  token_url: oauth2TokenUrl.optional(),
  scopes: oauth2Scopes.optional(),
});
export type UpdateCredentialRequest = z.infer<typeof updateCredentialSchema>;
/**
 * What the schema lets through, with the credential's type (the document's update bodies carry it; the
 * route takes it from the stored credential), is an UpdateCredential body of the document
 * (server/wire/assignable.ts).
 */
export type UpdateCredentialConforms = Assignable<
  UpdateCredentialRequest & { type: UpdateCredentialRequestBody["type"] },
  UpdateCredentialRequestBody
>;
