// An environment's egress log (GET /emulator/environments/{id}/egress): every connection its sandbox
// tried, allowed or refused and why, the rule that matched and the names (never the values) of the
// headers the proxy injected. Newest first; refused attempts stand out. It is read again every few
// seconds while the page is visible, so a running agent's attempts appear as they happen.

import { useState } from "preact/hooks";
import { getJson } from "../api.js";
import { formatBytes, formatMs, formatTime } from "../format.js";
import { html } from "../html.js";
import { Badge, ErrorBox, Loading } from "./bits.js";
import { useVisiblePolling } from "./polling.js";

const REFRESH_MS = 3000;

export function EgressLog({ environmentId }) {
  const [state, setState] = useState({ entries: null, error: null });
  const [refusedOnly, setRefusedOnly] = useState(false);

  useVisiblePolling(
    async (signal) => {
      try {
        const entries = await allEntries(environmentId, signal);
        setState({ entries, error: null });
      } catch (error) {
        if (signal.aborted) return false;
        setState((old) => ({ entries: old.entries ?? [], error }));
      }
      return true;
    },
    [environmentId],
    REFRESH_MS,
  );

  if (state.entries === null) return html`<${Loading} what="Reading the egress log" />`;
  const shown = [...state.entries].reverse().filter((entry) => !refusedOnly || entry.decision === "refused");
  const refused = state.entries.filter((entry) => entry.decision === "refused").length;
  return html`<div class="egress-log">
    <${ErrorBox} error=${state.error} />
    <p class="muted">
      ${state.entries.length} attempts, ${refused} refused.
      <label class="inline"><input type="checkbox" checked=${refusedOnly} onChange=${(event) => setRefusedOnly(event.currentTarget.checked)} /> refused only</label>
    </p>
    ${
      shown.length === 0
        ? html`<p class="muted">No connection attempts${refusedOnly ? " refused" : ""} yet.</p>`
        : html`<table class="table egress">
            <thead>
              <tr><th>Time</th><th>Decision</th><th>Request</th><th>Status</th><th>Reason</th><th>Rule</th><th>Injected headers</th><th class="num">Up / down</th><th class="num">Took</th></tr>
            </thead>
            <tbody>
              ${shown.map(
                (entry) => html`<tr class=${entry.decision} data-decision=${entry.decision} data-host=${entry.host}>
                  <td>${formatTime(entry.time)}</td>
                  <td><${Badge} kind=${entry.decision === "refused" ? "deny" : "allow"}>${entry.decision}<//></td>
                  <td class="mono">${entry.method} ${entry.host}:${entry.port}${entry.intercepted ? html` <span class="muted" title="TLS terminated to inject headers">(intercepted)</span>` : null}</td>
                  <td>${entry.status ?? ""}</td>
                  <td>${entry.reason ?? ""}</td>
                  <td class="mono">${entry.rule ?? html`<span class="muted">none</span>`}</td>
                  <td class="mono">${(entry.injected_header_names ?? []).join(", ")}</td>
                  <td class="num">${formatBytes(entry.bytes_up)} / ${formatBytes(entry.bytes_down)}</td>
                  <td class="num">${formatMs(entry.duration_ms)}</td>
                </tr>`,
              )}
            </tbody>
          </table>`
    }
  </div>`;
}

/** Every entry kept for the environment (at most EMULATOR_EGRESS_LOG_ENTRIES, 1000 by default), oldest first. */
async function allEntries(environmentId, signal) {
  const entries = [];
  let token = "";
  do {
    const query = new URLSearchParams({ page_size: "1000" });
    if (token) query.set("page_token", token);
    const page = await getJson(`/emulator/environments/${encodeURIComponent(environmentId)}/egress?${query}`, signal);
    entries.push(...page.entries);
    token = page.next_page_token;
  } while (token);
  return entries;
}
