// The key's environments, newest first (GET /{v}/environments), each with its size counted in its sandbox.

import { useEffect, useState } from "preact/hooks";
import { getJson, V } from "../api.js";
import { ErrorBox, Loading, StatusBadge } from "../components/bits.js";
import { formatBytes, timeAgo } from "../format.js";
import { html } from "../html.js";
import { Link, links } from "../router.js";

export function EnvironmentsPage() {
  const [state, setState] = useState({ environments: null, next: "", error: null });
  const load = async (token = "", signal = undefined) => {
    try {
      const query = new URLSearchParams({ page_size: "50" });
      if (token) query.set("page_token", token);
      const page = await getJson(`${V}/environments?${query}`, signal);
      setState((old) => ({
        environments: [...(token ? (old.environments ?? []) : []), ...page.environments],
        next: page.next_page_token,
        error: null,
      }));
    } catch (error) {
      if (!signal?.aborted) setState((old) => ({ ...old, environments: old.environments ?? [], error }));
    }
  };
  useEffect(() => {
    const controller = new AbortController();
    void load("", controller.signal);
    return () => controller.abort();
  }, []);

  return html`<main>
    <header class="page-head"><h1>Environments</h1></header>
    <${ErrorBox} error=${state.error} />
    ${state.environments === null ? html`<${Loading} />` : null}
    ${state.environments?.length === 0 ? html`<p class="muted">No environments yet.</p>` : null}
    ${
      state.environments?.length > 0
        ? html`<table class="table">
            <thead><tr><th>Status</th><th>Environment</th><th>Sources</th><th class="num">Files</th><th class="num">Size</th><th>Created</th><th>Last used</th></tr></thead>
            <tbody>
              ${state.environments.map(
                (environment) => html`<tr data-environment-id=${environment.id}>
                  <td><${StatusBadge} status=${environment.emulator_status ?? environment.status} /></td>
                  <td class="mono"><${Link} href=${links.environment(environment.id)}>${environment.id}<//></td>
                  <td>${environment.sources.length}</td>
                  <td class="num">${environment.file_count}</td>
                  <td class="num">${formatBytes(environment.size_bytes)}</td>
                  <td title=${environment.created}>${timeAgo(environment.created)}</td>
                  <td title=${environment.last_accessed}>${timeAgo(environment.last_accessed)}</td>
                </tr>`,
              )}
            </tbody>
          </table>`
        : null
    }
    ${state.next ? html`<button type="button" onClick=${() => load(state.next)}>More environments</button>` : null}
  </main>`;
}
