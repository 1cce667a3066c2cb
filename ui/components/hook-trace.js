// What the hooks did before or after one tool call (the hook trace: docs/hooks.md#the-hook-trace): each
// handler with its decision (allow, deny with its reason, fail-open with its cause, not run and why),
// its exit or HTTP status, timing and output; the rules and why each matched or not; the files read; the
// diagnostics. A deny and a fail-open are marked so they stand out.

import { html } from "../html.js";
import { formatBytes, formatMs, plural } from "../format.js";
import { Badge } from "./bits.js";

export function HookTraceView({ trace, title }) {
  const denied = trace.decision === "deny";
  const failedOpen = trace.handlers.filter((handler) => handler.fail_open).length;
  return html`<section class=${`hook-trace${denied ? " denied" : ""}${failedOpen ? " failed-open" : ""}`} data-event=${trace.event}>
    <h4>
      ${title}
      ${denied ? html` <${Badge} kind="deny">denied<//>` : null}
      ${failedOpen ? html` <${Badge} kind="fail-open">${failedOpen === 1 ? "a hook failed open" : `${failedOpen} hooks failed open`}<//>` : null}
      <span class="muted small"> ${formatMs(trace.duration_ms)}</span>
    </h4>
    <p class="summary">${trace.summary}</p>
    ${trace.handlers.length > 0 ? html`<ul class="handlers">${trace.handlers.map((handler) => html`<${Handler} handler=${handler} />`)}</ul>` : null}
    ${trace.diagnostics.length > 0 ? html`<${Diagnostics} diagnostics=${trace.diagnostics} />` : null}
    <details class="rules">
      <summary>${plural(trace.rules.length, "rule")} considered, ${plural(trace.files.filter((file) => file.status === "loaded").length, "file")} read</summary>
      <ul>
        ${trace.rules.map(
          (rule) => html`<li class=${`rule ${rule.match}`}>
            <span class="mark">${rule.match === "matched" ? "✓" : "✗"}</span>
            <strong>${rule.group}</strong> ${rule.event}[${rule.rule_index}] ${rule.matcher === null ? "(no matcher)" : html`matcher <code>${rule.matcher}</code>`}:
            ${rule.match.replace(/_/g, " ")} <span class="muted">(${rule.why})</span>
          </li>`,
        )}
      </ul>
      <ul class="files">
        ${trace.files.map(
          (file) => html`<li>
            <code>${file.path}</code>: ${file.status}${file.status === "loaded" ? `, ${plural(file.groups, "group")} (${formatBytes(file.bytes ?? 0)})` : ""}
            ${file.read_only ? " (read-only mount)" : ""}${file.detail ? html` <span class="muted">${file.detail}</span>` : null}
          </li>`,
        )}
      </ul>
    </details>
  </section>`;
}

const DECISIONS = {
  allow: ["allow", "allow"],
  deny: ["deny", "DENY"],
  not_run: ["not-run", "not run"],
  ignored: ["ran", "ran"],
};

function Handler({ handler }) {
  const [kind, label] = handler.fail_open ? ["fail-open", "FAIL-OPEN"] : (DECISIONS[handler.decision] ?? ["", handler.decision]);
  return html`<li class=${`handler ${kind}`} data-decision=${handler.fail_open ? "fail_open" : handler.decision} data-group=${handler.group}>
    <div class="handler-head">
      <${Badge} kind=${kind}>${label}<//>
      <strong>${handler.group}</strong>
      <span class="muted">${handler.event}[${handler.rule_index}].hooks[${handler.handler_index}]</span>
      ${handler.kind === "command" ? html`<code>${handler.command}</code>` : html`<span>POST <code>${handler.url}</code></span>`}
      <span class="muted small">${outcomeOf(handler)}</span>
    </div>
    ${handler.deny_reason !== null ? html`<p class="reason deny-reason">Reason: ${handler.deny_reason}</p>` : null}
    ${handler.fail_open ? html`<p class="reason fail-open-cause">Failed open (<code>${handler.fail_open.code}</code>): ${handler.fail_open.reason}</p>` : null}
    ${!handler.fail_open && handler.failure ? html`<p class="reason failure">Failed (<code>${handler.failure.code}</code>): ${handler.failure.reason}</p>` : null}
    ${handler.injected_fault ? html`<p class="reason injected-fault">Injected: <code>${handler.injected_fault.effect.kind}</code> by fault rule <code>${handler.injected_fault.rule_id}</code></p>` : null}
    ${handler.not_run_reason ? html`<p class="reason muted">Not run: ${handler.not_run_reason}</p>` : null}
    ${
      handler.stdout_bytes > 0 || handler.stderr_bytes > 0
        ? html`<details class="handler-output" open=${Boolean(handler.fail_open || handler.failure)}>
            <summary>output: ${formatBytes(handler.stdout_bytes)} stdout, ${formatBytes(handler.stderr_bytes)} stderr</summary>
            ${handler.stdout_bytes > 0 ? html`<div class="output-label">${handler.kind === "http" ? "response body" : "stdout"}</div><pre class="code">${handler.stdout_excerpt}</pre>` : null}
            ${handler.stderr_bytes > 0 ? html`<div class="output-label">stderr</div><pre class="code">${handler.stderr_excerpt}</pre>` : null}
          </details>`
        : null
    }
  </li>`;
}

function outcomeOf(handler) {
  if (handler.decision === "not_run") return "";
  const parts = [];
  if (handler.exit_code !== null) parts.push(`exit ${handler.exit_code}`);
  if (handler.http_status !== null) parts.push(`HTTP ${handler.http_status}`);
  if (handler.signal) parts.push(handler.signal);
  if (handler.timed_out) parts.push("timed out");
  if (handler.duration_ms !== null) parts.push(`${formatMs(handler.duration_ms)} of ${handler.timeout_s} s allowed`);
  return parts.join(", ");
}

function Diagnostics({ diagnostics }) {
  return html`<ul class="diagnostics">
    ${diagnostics.map(
      (diagnostic) => html`<li class=${`diagnostic ${diagnostic.severity}`}>
        <${Badge} kind=${diagnostic.severity}>${diagnostic.severity}<//> ${diagnostic.message} <code class="muted">${diagnostic.code}</code>
      </li>`,
    )}
  </ul>`;
}
