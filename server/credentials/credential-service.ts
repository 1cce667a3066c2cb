// The /{v}/credentials resource: create, get, list, update, delete. Responses carry the credential's
// identity and state only; secret fields are write-only.

import { randomUUID } from "node:crypto";
import type { Credential } from "../wire/openapi-types.js";
import { AbortedError, InvalidArgumentError, NotFoundError } from "../common/errors.js";
import { jsonLengthAtMost } from "../common/json-size.js";
import { pageById } from "../common/page-token.js";
import { fieldsToUpdate } from "../common/update-mask.js";
import { nowTimestamp } from "../common/timestamps.js";
import type { CreateCredentialRequest, UpdateCredentialRequest } from "./credential-schemas.js";
import type { CredentialRecord, CredentialStore } from "./credential-store.js";

/**
 * The Credential as the emulator answers it: the document's (server/wire/openapi-types.ts), with its type
 * and status always given, and the non-secret settings echoed, which the document's Credential lacks.
 */
export type CredentialResource = Credential & {
  type: CredentialRecord["type"];
  status: "active" | "revoked";
  /** Emulator-only: imported from a state snapshot without its secret (docs/state-snapshots.md). */
  needs_secret?: true;
  create_time: string;
  update_time: string;
  /** Non-secret settings, echoed so a user can check what will be injected where. */
  header_name?: string;
  prefix?: string;
  injection_location?: unknown;
  trusted_domains?: string[];
  client_id?: string;
  token_url?: string;
  scopes?: string[];
};

export const SECRET_FIELDS = new Set(["token", "value", "client_secret", "refresh_token"]);
/** The secret fields each type needs; a credential imported without them waits for them (needs_secret). */
const REQUIRED_SECRETS: Record<CreateCredentialRequest["type"], readonly string[]> = {
  bearer_token: ["token"],
  environment_variable: ["value"],
  oauth2: ["client_secret", "refresh_token"],
};
const UPDATABLE: Record<CreateCredentialRequest["type"], readonly string[]> = {
  bearer_token: ["token", "header_name", "prefix"],
  environment_variable: ["value", "injection_location", "trusted_domains"],
  oauth2: ["client_id", "client_secret", "refresh_token", "token_url", "scopes"],
};

export function renderCredential(record: CredentialRecord): CredentialResource {
  const visible: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record.config)) {
    if (!SECRET_FIELDS.has(key) && key !== "id" && key !== "type") visible[key] = value;
  }
  return {
    id: record.id,
    type: record.type,
    // The document knows only active and revoked (a client's closed enum): a credential imported without
    // its secret is not usable, so it reads as revoked, and says why in a field of the emulator's own.
    status: record.status === "needs_secret" ? "revoked" : record.status,
    ...(record.status === "needs_secret" ? { needs_secret: true } : {}),
    create_time: record.createTime,
    update_time: record.updateTime,
    ...visible,
  };
}

export class CredentialService {
  constructor(private readonly store: CredentialStore) {}

  create(owner: string, request: CreateCredentialRequest): CredentialRecord {
    const now = nowTimestamp();
    // The credentials page ("Generated IDs"): without an id, the service makes a UUID.
    const id = request.id ?? randomUUID();
    const record: CredentialRecord = {
      owner,
      id,
      type: request.type,
      status: "active",
      config: { ...request, id },
      createTime: now,
      updateTime: now,
    };
    if (!this.store.insert(record)) {
      // 409 `aborted`, as the credentials page's errors table shows it (not `already_exists`): docs/fidelity.md.
      throw new AbortedError(`Credential ${id} already exists. Update it (PATCH) or delete it first.`);
    }
    return record;
  }

  get(owner: string, id: string): CredentialRecord {
    const record = this.store.get(owner, id);
    if (!record) throw new NotFoundError(`Credential ${id} not found.`);
    return record;
  }

  /** A page of at most pageSize credentials and, past the first, about maxBytes of their JSON (EMULATOR_LIST_PAGE_BYTES). */
  list(
    owner: string,
    pageSize: number,
    pageToken: string | undefined,
    maxBytes: number,
  ): { credentials: CredentialRecord[]; nextPageToken: string } {
    const { items, nextPageToken } = pageById(pageSize, pageToken, (limit, afterId) => this.store.list(owner, limit, afterId), {
      maxBytes,
      sizeOf: (record) => jsonLengthAtMost(renderCredential(record), maxBytes),
    });
    return { credentials: items, nextPageToken };
  }

  update(owner: string, id: string, changes: UpdateCredentialRequest, updateMask: string | undefined): CredentialRecord {
    const record = this.get(owner, id);
    // The SDK's update shapes carry `type` (and callers often echo `id`): fine when they agree.
    const { type, id: bodyId, ...fields } = changes as UpdateCredentialRequest & { type?: unknown; id?: unknown };
    if (type !== undefined && type !== record.type) {
      throw new InvalidArgumentError(`Credential ${id} is a ${record.type} credential; its type cannot change to ${String(type)}.`);
    }
    if (bodyId !== undefined && bodyId !== id)
      throw new InvalidArgumentError(`The body's id ${String(bodyId)} does not match ${id} in the path.`);
    const allowed = UPDATABLE[record.type];
    const given = Object.keys(fields).filter((key) => (fields as Record<string, unknown>)[key] !== undefined);
    const masked = fieldsToUpdate(updateMask, given);
    const wrong = masked.filter((field) => !allowed.includes(field));
    if (wrong.length > 0) {
      throw new InvalidArgumentError(
        `Cannot update ${wrong.join(", ")} on a ${record.type} credential; updatable fields: ${allowed.join(", ")}.`,
      );
    }
    const next: Record<string, unknown> = { ...record.config };
    for (const field of masked) {
      const value = (fields as Record<string, unknown>)[field];
      if (value === undefined) delete next[field];
      else next[field] = value;
    }
    const updated = { ...record, config: next as CreateCredentialRequest, updateTime: nowTimestamp() };
    this.store.replaceConfig(owner, id, updated.config, updated.updateTime);
    // Imported without its secret (a state snapshot): usable again once every secret is set.
    if (record.status === "needs_secret" && REQUIRED_SECRETS[record.type].every((field) => typeof next[field] === "string")) {
      updated.status = "active";
      this.store.setStatus(owner, id, "active");
    }
    return updated;
  }

  delete(owner: string, id: string): void {
    if (!this.store.delete(owner, id)) throw new NotFoundError(`Credential ${id} not found.`);
  }
}
