// The key's interactions, newest first and live: a new one appears when it is created, and its row
// follows it to its end. Filters (status, agent or model, environment) are part of the address.

import { useState } from "preact/hooks";
import { Badge, ErrorBox, Loading } from "../components/bits.js";
import { InteractionTable } from "../components/interaction-table.js";
import { useLiveInteractions } from "../components/live-interactions.js";
import { html } from "../html.js";
import { links, navigate } from "../router.js";
// Made by the server from its own list (server/http/ui-statuses.ts), served as /ui/assets/statuses.js.
import { STATUSES } from "../statuses.js";

export function InteractionsPage({ query }) {
  const filter = {
    status: query.get("status") ?? "",
    agent: query.get("agent") ?? "",
    environment_id: query.get("environment_id") ?? "",
  };
  const list = useLiveInteractions(filter);
  const agents = [...new Set(list.items.map((item) => item.agent ?? item.model).filter(Boolean))];
  if (filter.agent && !agents.includes(filter.agent)) agents.push(filter.agent);

  const setFilter = (name, value) => {
    const next = new URLSearchParams(query);
    if (value) next.set(name, value);
    else next.delete(name);
    navigate(links.interactions(next), { replace: true });
  };

  return html`<main>
    <header class="page-head">
      <h1>Interactions</h1>
      <${LiveMark} live=${list.live} />
    </header>
    <form class="filters" onSubmit=${(event) => event.preventDefault()}>
      <label>Status
        <select name="status" value=${filter.status} onChange=${(event) => setFilter("status", event.currentTarget.value)}>
          <option value="">any</option>
          ${STATUSES.map((status) => html`<option value=${status}>${status.replace("_", " ")}</option>`)}
        </select>
      </label>
      <label>Agent or model
        <select name="agent" value=${filter.agent} onChange=${(event) => setFilter("agent", event.currentTarget.value)}>
          <option value="">any</option>
          ${agents.map((agent) => html`<option value=${agent}>${agent}</option>`)}
        </select>
      </label>
      <${EnvironmentFilter} value=${filter.environment_id} onChange=${(value) => setFilter("environment_id", value)} />
    </form>
    <${ErrorBox} error=${list.error} />
    ${list.loading ? html`<${Loading} />` : null}
    ${
      !list.loading && list.items.length === 0
        ? html`<p class="empty muted">No interactions${filter.status || filter.agent || filter.environment_id ? " match these filters" : " yet"}. They appear here as soon as they are created.</p>`
        : null
    }
    ${list.items.length > 0 ? html`<${InteractionTable} interactions=${list.items} />` : null}
    ${list.nextPageToken ? html`<button type="button" onClick=${list.loadMore}>Older interactions</button>` : null}
  </main>`;
}

function EnvironmentFilter({ value, onChange }) {
  const [text, setText] = useState(value);
  return html`<label>Environment
    <input name="environment_id" placeholder="env_…" value=${text}
      onInput=${(event) => setText(event.currentTarget.value)}
      onChange=${(event) => onChange(event.currentTarget.value.trim())} />
  </label>`;
}

export function LiveMark({ live }) {
  return live
    ? html`<${Badge} kind="live" title="changes appear as they happen">live<//>`
    : html`<${Badge} kind="offline" title="reconnecting to the live feed">reconnecting<//>`;
}
