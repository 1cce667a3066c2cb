// Interactions as rows: status, what was asked, as which agent, where, how many calls and whether a
// hook denied one or failed open (those stand out), tokens, and when.

import { useEffect, useState } from "preact/hooks";
import { html } from "../html.js";
import { durationBetween, timeAgo } from "../format.js";
import { Link, links } from "../router.js";
import { Badge, StatusBadge } from "./bits.js";

/** Re-renders every `ms`, so "12 s ago" stays true on a page left open. */
function useNow(ms) {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export function InteractionTable({ interactions, showEnvironment = true }) {
  const now = useNow(10_000);
  return html`<table class="table interactions">
    <thead>
      <tr>
        <th>Status</th>
        <th>Interaction</th>
        <th>Input</th>
        <th>Agent / model</th>
        ${showEnvironment ? html`<th>Environment</th>` : null}
        <th>Calls</th>
        <th class="num">Tokens</th>
        <th>Created</th>
      </tr>
    </thead>
    <tbody>
      ${interactions.map((item) => html`<${Row} key=${item.id} item=${item} showEnvironment=${showEnvironment} now=${now} />`)}
    </tbody>
  </table>`;
}

function Row({ item, showEnvironment, now }) {
  const flagged = item.denied_calls > 0 || item.failed_open_hooks > 0;
  return html`<tr class=${flagged ? "flagged" : ""} data-interaction-id=${item.id} data-status=${item.status}>
    <td><${StatusBadge} status=${item.status} /></td>
    <td class="mono"><${Link} href=${links.interaction(item.id)}>${item.id}<//></td>
    <td class="preview" title=${item.input_preview}>${item.input_preview || html`<span class="muted">(no text)</span>`}</td>
    <td>${item.agent ?? item.model ?? ""}</td>
    ${
      showEnvironment
        ? html`<td class="mono">${item.environment_id ? html`<${Link} href=${links.environment(item.environment_id)}>${item.environment_id}<//>` : html`<span class="muted">none</span>`}</td>`
        : null
    }
    <td>
      ${item.tool_calls}
      ${item.denied_calls > 0 ? html` <${Badge} kind="deny" title="calls a hook denied">${item.denied_calls} denied<//>` : null}
      ${item.failed_open_hooks > 0 ? html` <${Badge} kind="fail-open" title="hooks that allowed only because they failed">${item.failed_open_hooks} failed open<//>` : null}
    </td>
    <td class="num">${item.total_tokens ?? ""}</td>
    <td title=${item.created}>
      ${timeAgo(item.created, now)}${item.status !== "in_progress" ? html`<span class="muted"> · ${durationBetween(item.created, item.updated)}</span>` : null}
    </td>
  </tr>`;
}
