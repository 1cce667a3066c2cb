// One environment: its state and size, its sources (without their content), its network policy (header
// values redacted by the API), its egress log, a file browser with downloads, and its interactions.

import { useEffect, useState } from "preact/hooks";
import { getJson, V } from "../api.js";
import { ErrorBox, Facts, Json, Loading, StatusBadge } from "../components/bits.js";
import { EgressLog } from "../components/egress-log.js";
import { FileBrowser } from "../components/file-browser.js";
import { InteractionTable } from "../components/interaction-table.js";
import { useLiveInteractions } from "../components/live-interactions.js";
import { formatBytes, formatTime } from "../format.js";
import { html } from "../html.js";
import { Link, links } from "../router.js";
import { LiveMark } from "./interactions-page.js";

export function EnvironmentPage({ id, query }) {
  const [state, setState] = useState({ environment: null, error: null });
  useEffect(() => {
    const controller = new AbortController();
    setState({ environment: null, error: null });
    getJson(`${V}/environments/${encodeURIComponent(id)}`, controller.signal)
      .then((environment) => setState({ environment, error: null }))
      .catch((error) => !controller.signal.aborted && setState({ environment: null, error }));
    return () => controller.abort();
  }, [id]);

  const { environment, error } = state;
  return html`<main class="environment">
    <header class="page-head">
      <h1><span class="muted">Environment</span> <span class="mono">${id}</span></h1>
      ${environment ? html`<${StatusBadge} status=${environment.emulator_status ?? environment.status} />` : null}
      <${Link} href=${links.coverage(id)} data-coverage-link>Hook coverage<//>
    </header>
    <${ErrorBox} error=${error} />
    ${environment?.emulator_status_reason ? html`<${ErrorBox}>${environment.emulator_status_reason}<//>` : null}
    ${!environment && !error ? html`<${Loading} />` : null}
    ${
      environment
        ? html`
          <${Facts}
            items=${[
              ["Created", formatTime(environment.created)],
              ["Last used", formatTime(environment.last_accessed)],
              ["Files", environment.file_count],
              ["Size", formatBytes(environment.size_bytes)],
            ]}
          />
          <section>
            <h2>Sources</h2>
            <${Sources} sources=${environment.sources} />
          </section>
          <section>
            <h2>Network policy</h2>
            <${NetworkPolicy} network=${environment.network} />
          </section>`
        : null
    }
    ${
      error?.status === 404
        ? null
        : html`
          <section>
            <h2>Egress log</h2>
            <${EgressLog} environmentId=${id} />
          </section>
          ${environment?.status === "active" ? html`<section><h2>Files</h2><${FileBrowser} environmentId=${id} path=${query.get("path") ?? "workspace"} /></section>` : null}
          <section>
            <${EnvironmentInteractions} id=${id} />
          </section>`
    }
  </main>`;
}

function Sources({ sources }) {
  if (!sources || sources.length === 0) return html`<p class="muted">None.</p>`;
  return html`<table class="table">
    <thead><tr><th>Type</th><th>Target</th><th>Source</th></tr></thead>
    <tbody>
      ${sources.map(
        (source) => html`<tr>
          <td>${source.type}</td>
          <td class="mono">${source.target}</td>
          <td class="mono">${source.source ?? html`<span class="muted">${source.type === "inline" ? "inline content (not shown)" : ""}</span>`}${source.encoding ? ` (${source.encoding})` : ""}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

function NetworkPolicy({ network }) {
  if (network === undefined) return html`<p>Open: every public destination (no <code>network</code> was given).</p>`;
  if (network === "disabled" || network?.allowlist === "disabled") return html`<p>Disabled: nothing may be reached.</p>`;
  if (!Array.isArray(network?.allowlist)) return html`<${Json} value=${network} />`;
  return html`<div>
    <p>Only these domains (header values are never shown):</p>
    <table class="table">
      <thead><tr><th>Domain</th><th>Injected headers</th><th>Credential</th></tr></thead>
      <tbody>
        ${network.allowlist.map(
          (entry) => html`<tr>
            <td class="mono">${entry.domain}</td>
            <td class="mono">${headerList(entry.transform)}</td>
            <td class="mono">${entry.credential ?? ""}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function headerList(transform) {
  if (!transform) return "";
  const all = Array.isArray(transform) ? transform : [transform];
  return all
    .flatMap((headers) => Object.entries(headers))
    .map(([name, value]) => `${name}: ${value}`)
    .join(", ");
}

function EnvironmentInteractions({ id }) {
  const list = useLiveInteractions({ environment_id: id });
  return html`<div>
    <header class="section-head"><h2>Interactions</h2><${LiveMark} live=${list.live} /></header>
    <${ErrorBox} error=${list.error} />
    ${list.loading ? html`<${Loading} />` : list.items.length === 0 ? html`<p class="muted">None yet.</p>` : html`<${InteractionTable} interactions=${list.items} showEnvironment=${false} />`}
    ${list.nextPageToken ? html`<button type="button" onClick=${list.loadMore}>Older interactions</button>` : null}
  </div>`;
}
