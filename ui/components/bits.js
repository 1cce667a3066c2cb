// Small pieces every page uses: status badges, an error box, a loading line, JSON as text.

import { html } from "../html.js";

const STATUS_LABELS = {
  queued: "queued",
  in_progress: "running",
  requires_action: "waiting for client",
  requires_continuation: "to be continued",
  incomplete: "incomplete",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
  active: "active",
  expired: "expired",
  lost: "lost",
  // Webhooks, their deliveries and each attempt
  enabled: "enabled",
  disabled: "disabled",
  disabled_due_to_failed_deliveries: "disabled: deliveries failed",
  pending: "pending",
  delivered: "delivered",
  given_up: "given up",
};

export function StatusBadge({ status }) {
  return html`<span class=${`badge status-${status}`} data-status=${status}>${STATUS_LABELS[status] ?? status}</span>`;
}

export function Badge({ kind, children, title }) {
  return html`<span class=${`badge ${kind}`} title=${title}>${children}</span>`;
}

export function ErrorBox({ error, children }) {
  if (!error && !children) return null;
  return html`<div class="error-box" role="alert">${children}${error ? html`<span>${error.message ?? String(error)}</span>` : null}</div>`;
}

export function Loading({ what = "Loading" }) {
  return html`<p class="muted loading">${what}…</p>`;
}

export function Json({ value }) {
  return html`<pre class="code">${JSON.stringify(value, null, 2)}</pre>`;
}

/** A block of program output or code; empty output says so rather than showing nothing. */
export function Output({ text, label, error }) {
  return html`<div class=${`output${error ? " is-error" : ""}`}>
    ${label ? html`<div class="output-label">${label}</div>` : null}
    ${text ? html`<pre class="code">${text}</pre>` : html`<p class="muted">(nothing)</p>`}
  </div>`;
}

/** A heading with a line of facts under it. */
export function Facts({ items }) {
  return html`<dl class="facts">
    ${items
      .filter(([, value]) => value !== null && value !== undefined && value !== "")
      .map(([term, value]) => html`<div><dt>${term}</dt><dd>${value}</dd></div>`)}
  </dl>`;
}
