// `environment.network` as stored with an environment, checked when a request sets it, and turned
// into the policy the egress proxy enforces. The policy is rebuilt for every connection, so a later
// interaction's network (or a rotated credential) applies to the next request the sandbox makes.

import { assignOwn } from "../common/own-keys.js";
import type { z } from "zod";
import {
  isInjectableHeaderName,
  isInjectableHeaderValue,
  whyNotInjectable,
  whyNotTokenUrl,
  type AllowlistEntry,
  type EgressPolicy,
  type OAuth2Grant,
} from "../../proxy/index.js";
import type { networkSchema } from "../api/create-interaction.js";
import type { CredentialStore } from "../credentials/credential-store.js";
import { InvalidArgumentError } from "../common/errors.js";

export type NetworkInput = z.infer<typeof networkSchema>;
export type { EgressPolicy };

const DOMAIN = /^(\*|(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.?)$/i;

/** Refuses, with a 400 naming the entry, what the proxy could never honour. */
export function checkNetwork(network: NetworkInput | undefined, owner: string, credentials: CredentialStore): void {
  if (network === undefined || network === "disabled" || network.allowlist === undefined || network.allowlist === "disabled") return;
  network.allowlist.forEach((entry, index) => {
    const where = `environment.network.allowlist[${index}]`;
    if (!DOMAIN.test(entry.domain)) {
      throw new InvalidArgumentError(`${where}.domain "${entry.domain}" is not a domain, "*.suffix" or "*"`);
    }
    for (const headers of transformList(entry.transform)) {
      for (const [name, value] of Object.entries(headers)) {
        const notInjectable = whyNotInjectable(name);
        if (notInjectable !== null) {
          throw new InvalidArgumentError(`${where}.transform: "${name}" cannot be injected: it ${notInjectable}`);
        }
        if (!isInjectableHeaderValue(value)) {
          throw new InvalidArgumentError(
            `${where}.transform["${name}"]: header values cannot contain line breaks or control characters, nor exceed 16384 characters`,
          );
        }
      }
    }
    if (entry.credential !== undefined) {
      const credential = credentials.get(owner, entry.credential);
      if (!credential) {
        throw new InvalidArgumentError(
          `${where}.credential "${entry.credential}" not found; create it first with POST /{version}/credentials`,
        );
      }
      if (credential.type === "environment_variable") {
        throw new InvalidArgumentError(
          `${where}.credential "${entry.credential}" is an environment_variable credential; allowlist entries inject headers, so name a bearer_token or oauth2 credential here, and put environment_variable ones in environment.env ({"NAME": {"credential": "${entry.credential}"}})`,
        );
      }
      if (credential.config.type === "oauth2") {
        const tokenUrl = credential.config.token_url;
        const why = tokenUrl === undefined ? "is not set" : whyNotTokenUrl(tokenUrl);
        if (why !== null) {
          throw new InvalidArgumentError(
            `${where}.credential "${entry.credential}": its token_url ${why}; set the OAuth2 token endpoint with PATCH /{version}/credentials/${entry.credential} {"token_url": "https://…"}`,
          );
        }
      }
    }
  });
}

/** The policy for one connection, with credentials read now (a deleted one drops its entry). */
export function egressPolicy(network: NetworkInput | undefined, owner: string, credentials: CredentialStore): EgressPolicy {
  if (network === undefined) return { mode: "open" };
  if (network === "disabled" || network.allowlist === "disabled") return { mode: "disabled" };
  if (network.allowlist === undefined) return { mode: "open" };
  const entries: AllowlistEntry[] = [];
  for (const entry of network.allowlist) {
    const headers: Record<string, string> = {};
    for (const map of transformList(entry.transform)) assignOwn(headers, map);
    if (entry.credential !== undefined) {
      const credential = credentials.get(owner, entry.credential);
      // Imported without its secret (state snapshot): nothing to inject until it is set again.
      if (credential?.status === "needs_secret") continue;
      if (credential?.config.type === "oauth2") {
        // Fail closed, as below: an entry whose token cannot be had is dropped.
        const grant = oauth2Grant(credential.config);
        if (grant === null) continue;
        entries.push({ domain: entry.domain, headers, oauth2: grant });
        continue;
      }
      // Fail closed: without its credential the entry would send requests unauthenticated.
      if (credential?.config.type !== "bearer_token") continue;
      const { header_name = "Authorization", prefix = "Bearer", token } = credential.config;
      // A credential stored before the API refused such names: the proxy would refuse the whole policy,
      // so only this entry is dropped (fail closed, as for a deleted credential).
      if (!isInjectableHeaderName(header_name)) continue;
      headers[header_name] = prefix === "" ? token : `${prefix} ${token}`;
    }
    entries.push({ domain: entry.domain, headers });
  }
  return { mode: "allowlist", entries };
}

/** The refresh grant the proxy uses for an OAuth2 credential; null when its token_url cannot be used. */
function oauth2Grant(config: {
  token_url?: string | undefined;
  client_id: string;
  client_secret: string;
  refresh_token: string;
  scopes?: string[] | undefined;
}): OAuth2Grant | null {
  const { token_url, client_id, client_secret, refresh_token, scopes } = config;
  if (token_url === undefined || whyNotTokenUrl(token_url) !== null) return null;
  return { token_url, client_id, client_secret, refresh_token, ...(scopes !== undefined ? { scopes } : {}) };
}

function transformList(transform: Record<string, string> | Array<Record<string, string>> | undefined): Array<Record<string, string>> {
  if (transform === undefined) return [];
  return Array.isArray(transform) ? transform : [transform];
}
