// The key's webhooks (GET /{v}/webhooks) and, under each, its deliveries with every attempt
// (GET /emulator/webhooks/deliveries), newest first. Signing secrets are never shown: the API returns
// only their truncated form, and the page leaves even that out. While any delivery is pending (a retry
// is due), both are read again every few seconds, so the next attempt appears without a reload.

import { useState } from "preact/hooks";
import { getJson, V } from "../api.js";
import { ErrorBox, Loading, StatusBadge } from "../components/bits.js";
import { useVisiblePolling } from "../components/polling.js";
import { formatMs, formatTime, plural } from "../format.js";
import { html } from "../html.js";
import { Link, links } from "../router.js";

const REFRESH_MS = 3000;

export function WebhooksPage() {
  const [state, setState] = useState({ webhooks: null, deliveries: [], error: null });
  const [reloads, setReloads] = useState(0);

  useVisiblePolling(
    async (signal) => {
      try {
        const [webhooks, deliveries] = await Promise.all([
          allPages((token) => `${V}/webhooks?${pageQuery(token, 1000)}`, "webhooks", signal),
          allPages((token) => `/emulator/webhooks/deliveries?${pageQuery(token, 1000)}`, "deliveries", signal),
        ]);
        setState({ webhooks, deliveries, error: null });
        return deliveries.some((delivery) => delivery.status === "pending");
      } catch (error) {
        if (signal.aborted) return false;
        setState((old) => ({ ...old, webhooks: old.webhooks ?? [], error }));
        return true; // try again: the error may pass
      }
    },
    [reloads],
    REFRESH_MS,
  );

  const pending = state.deliveries.filter((delivery) => delivery.status === "pending").length;
  // Deliveries to an interaction's own webhook_config.uris belong to no registered webhook.
  const unregistered = state.deliveries.filter((delivery) => delivery.webhook_id === null);
  return html`<main>
    <header class="page-head">
      <h1>Webhooks</h1>
      <button type="button" class="small" onClick=${() => setReloads((count) => count + 1)}>Refresh</button>
    </header>
    <p class="muted">
      Signing secrets are never shown. ${pending > 0 ? `${plural(pending, "delivery", "deliveries")} pending: read again every ${REFRESH_MS / 1000} s.` : ""}
    </p>
    <${ErrorBox} error=${state.error} />
    ${state.webhooks === null ? html`<${Loading} />` : null}
    ${state.webhooks?.length === 0 ? html`<p class="muted">No webhooks.</p>` : null}
    ${(state.webhooks ?? []).map(
      (webhook) =>
        html`<${WebhookSection} key=${webhook.id} webhook=${webhook} deliveries=${state.deliveries.filter((delivery) => delivery.webhook_id === webhook.id)} />`,
    )}
    ${
      unregistered.length > 0
        ? html`<section class="webhook" data-webhook-id="">
            <div class="section-head"><h2>Interactions' own webhook_config.uris</h2></div>
            <${Deliveries} deliveries=${unregistered} showUri=${true} />
          </section>`
        : null
    }
  </main>`;
}

function WebhookSection({ webhook, deliveries }) {
  return html`<section class="webhook" data-webhook-id=${webhook.id} data-state=${webhook.state}>
    <div class="section-head">
      <h2>${webhook.name ?? webhook.id}</h2>
      <${StatusBadge} status=${webhook.state} />
    </div>
    <dl class="facts">
      <div><dt>ID</dt><dd class="mono">${webhook.id}</dd></div>
      <div><dt>URI</dt><dd class="mono webhook-uri">${webhook.uri}</dd></div>
      <div><dt>Events</dt><dd class="mono webhook-events">${(webhook.subscribed_events ?? []).join(", ")}</dd></div>
      <div><dt>Created</dt><dd>${formatTime(webhook.create_time)}</dd></div>
    </dl>
    ${
      webhook.state === "disabled_due_to_failed_deliveries"
        ? html`<p class="muted">A delivery was given up after 24 hours of retries; set <code>state: "enabled"</code> with a PATCH to take events again.</p>`
        : null
    }
    <${Deliveries} deliveries=${deliveries} showUri=${false} />
  </section>`;
}

/** Each delivery (newest first) as a heading row, then its attempts, newest first. */
function Deliveries({ deliveries, showUri }) {
  if (deliveries.length === 0) return html`<p class="muted">No deliveries yet.</p>`;
  return html`<table class="table deliveries">
    <thead>
      <tr><th>Time</th><th>Attempt</th><th>Result</th><th class="num">Response</th><th class="num">Latency</th><th>Error</th><th>Next retry</th></tr>
    </thead>
    ${deliveries.map(
      (
        delivery,
      ) => html`<tbody key=${delivery.id} data-delivery-id=${delivery.id} data-delivery-status=${delivery.status} data-event-type=${delivery.event_type}>
        <tr class="delivery">
          <td colspan="7">
            <span class="mono">${delivery.event_type}</span> <${StatusBadge} status=${delivery.status} />
            <span class="muted"> ${delivery.id} · created ${formatTime(delivery.create_time)}${eventSubject(delivery)}</span>
            ${showUri ? html`<span class="mono"> → ${delivery.uri}</span>` : null}
            ${delivery.next_attempt_time ? html`<span class="muted"> · next attempt ${formatTime(delivery.next_attempt_time)}</span>` : null}
          </td>
        </tr>
        ${[...(delivery.attempts ?? [])].reverse().map(
          (
            attempt,
          ) => html`<tr class=${`attempt ${attempt.status}`} data-attempt=${attempt.attempt} data-attempt-status=${attempt.status} data-response-code=${attempt.response_code ?? ""}>
            <td>${formatTime(attempt.time)}</td>
            <td class="num">${attempt.attempt}</td>
            <td><${StatusBadge} status=${attempt.status} /></td>
            <td class="num mono">${attempt.response_code ?? html`<span class="muted">none</span>`}</td>
            <td class="num">${formatMs(attempt.latency_ms)}</td>
            <td>${attempt.error ?? ""}</td>
            <td>${attempt.next_retry_time ? formatTime(attempt.next_retry_time) : ""}</td>
          </tr>`,
        )}
      </tbody>`,
    )}
  </table>`;
}

/** The interaction (a link) or webhook an event is about, from the thin payload. */
function eventSubject(delivery) {
  const id = delivery.payload?.data?.id;
  if (typeof id !== "string") return "";
  if (id.startsWith("int_") || delivery.event_type.startsWith("interaction."))
    return html` · <${Link} href=${links.interaction(id)}>${id}<//>`;
  return "";
}

function pageQuery(token, size) {
  const query = new URLSearchParams({ page_size: String(size) });
  if (token) query.set("page_token", token);
  return query;
}

/** Every page of a list, in the order the API gives. */
async function allPages(address, field, signal) {
  const items = [];
  let token = "";
  do {
    const page = await getJson(address(token), signal);
    items.push(...(page[field] ?? []));
    token = page.next_page_token ?? "";
  } while (token);
  return items;
}
