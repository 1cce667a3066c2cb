// The state file (docs/state-snapshots.md): a gzip'd tar whose first entry is manifest.json (the
// format's name and version), then records.json (every stored row of one API key, secrets taken out),
// secrets.sealed when the caller asked for secrets (secret-box.ts), and environments/<id>.tar with each
// live environment's saved files. Version 1 is the only one; a reader refuses any other before it
// reads further, so a newer emulator's file is never half understood.

import { z } from "zod";

export const STATE_FORMAT = "interactions-emulator-state";
export const STATE_VERSION = 1;

export const MANIFEST_ENTRY = "manifest.json";
export const RECORDS_ENTRY = "records.json";
export const SECRETS_ENTRY = "secrets.sealed";
export const ENVIRONMENT_ENTRY = /^environments\/([A-Za-z0-9_-]{1,128})\.tar$/;

export const environmentEntry = (id: string): string => `environments/${id}.tar`;

/** Folders of a sandbox whose files are saved: the sandbox layout's (server/sandbox/layout.ts), which a fork under the swarm runtime copies too. */
export { SAVED_FOLDERS } from "../sandbox/layout.js";

/** The tables a state file carries, parents before children (the order they are inserted in). */
export const STATE_TABLES = [
  "environments",
  "interactions",
  "steps",
  "hook_traces",
  "interaction_events",
  "agents",
  "agent_uses",
  "credentials",
  "triggers",
  "trigger_executions",
  "webhooks",
  "webhook_secrets",
] as const;
export type StateTable = (typeof STATE_TABLES)[number];

export const manifestSchema = z.object({
  format: z.literal(STATE_FORMAT),
  version: z.number().int(),
  created: z.string(),
  /** "sealed" when secrets.sealed holds the credentials' and webhooks' secrets. */
  secrets: z.enum(["left_out", "sealed"]),
  /** The environments whose saved files follow. */
  environments: z.array(z.string()),
});
export type StateManifest = z.infer<typeof manifestSchema>;

const row = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));
export type StateTables = Record<StateTable, Array<Record<string, string | number | null>>>;

/** What secrets.sealed holds once opened: the credentials' secret fields by ID, and the webhooks' secrets as rows. */
export const sealedSecretsSchema = z.strictObject({
  credentials: z.record(z.string(), z.record(z.string(), z.string())),
  webhook_secrets: z.array(row),
});
export type SealedSecrets = z.infer<typeof sealedSecretsSchema>;
