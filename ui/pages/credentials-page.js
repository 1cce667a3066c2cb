// The key's credentials (GET /{v}/credentials): what each injects and where. The API never returns a
// secret (tokens, values, client secrets are write-only), so none can appear here.

import { useEffect, useState } from "preact/hooks";
import { getJson, V } from "../api.js";
import { ErrorBox, Loading, StatusBadge } from "../components/bits.js";
import { formatTime } from "../format.js";
import { html } from "../html.js";

export function CredentialsPage() {
  const [state, setState] = useState({ credentials: null, next: "", error: null });
  const load = async (token = "", signal = undefined) => {
    try {
      const query = new URLSearchParams({ page_size: "100" });
      if (token) query.set("page_token", token);
      const page = await getJson(`${V}/credentials?${query}`, signal);
      setState((old) => ({
        credentials: [...(token ? (old.credentials ?? []) : []), ...page.credentials],
        next: page.next_page_token,
        error: null,
      }));
    } catch (error) {
      if (!signal?.aborted) setState((old) => ({ ...old, credentials: old.credentials ?? [], error }));
    }
  };
  useEffect(() => {
    const controller = new AbortController();
    void load("", controller.signal);
    return () => controller.abort();
  }, []);

  return html`<main>
    <header class="page-head"><h1>Credentials</h1></header>
    <p class="muted">Secrets are write-only: the API never returns them, so they are not shown.</p>
    <${ErrorBox} error=${state.error} />
    ${state.credentials === null ? html`<${Loading} />` : null}
    ${state.credentials?.length === 0 ? html`<p class="muted">No credentials.</p>` : null}
    ${
      state.credentials?.length > 0
        ? html`<table class="table">
            <thead><tr><th>ID</th><th>Type</th><th>Status</th><th>Injects</th><th>Trusted domains</th><th>Updated</th></tr></thead>
            <tbody>
              ${state.credentials.map(
                (credential) => html`<tr data-credential-id=${credential.id}>
                  <td class="mono">${credential.id}</td>
                  <td>${credential.type.replace(/_/g, " ")}</td>
                  <td><${StatusBadge} status=${credential.status} /></td>
                  <td class="mono">${injects(credential)}</td>
                  <td class="mono">${(credential.trusted_domains ?? []).join(", ")}</td>
                  <td>${formatTime(credential.update_time)}</td>
                </tr>`,
              )}
            </tbody>
          </table>`
        : null
    }
    ${state.next ? html`<button type="button" onClick=${() => load(state.next)}>More credentials</button>` : null}
  </main>`;
}

/** Where a credential goes, in words, from its non-secret settings. */
function injects(credential) {
  if (credential.type === "bearer_token") return `${credential.header_name ?? "Authorization"}: ${credential.prefix ?? "Bearer"} …`;
  if (credential.type === "environment_variable") return JSON.stringify(credential.injection_location ?? {});
  if (credential.type === "oauth2") return `OAuth 2 client ${credential.client_id ?? ""}`;
  return "";
}
