// Hook coverage (GET /emulator/hooks/coverage, docs/hooks-coverage.md): each hooks.json the key's
// calls were evaluated with, shown as stored, each rule's handler line marked with what came of it
// (exercised, never matched, only failed open, deny never taken, …) and its counts; then every rule
// in a table (a file written on one line has all its rules on that line) and the built-in tools.

import { useEffect, useState } from "preact/hooks";
import { getJson } from "../api.js";
import { Badge, ErrorBox, Loading } from "../components/bits.js";
import { html } from "../html.js";
import { Link, links } from "../router.js";

const STATES = {
  exercised: { label: "exercised", kind: "ok" },
  never_matched: { label: "never matched", kind: "deny" },
  never_ran: { label: "matched, never ran", kind: "deny" },
  only_failed_open: { label: "only failed open", kind: "warn" },
  only_errors: { label: "only failed", kind: "warn" },
  deny_never_taken: { label: "deny never taken", kind: "warn" },
  disabled: { label: "disabled", kind: "muted" },
};

function StateBadge({ state }) {
  const known = STATES[state] ?? { label: state, kind: "muted" };
  return html`<span class=${`badge coverage-${known.kind}`} data-state=${state}>${known.label}</span>`;
}

function counts(rule) {
  const reasons = Object.entries(rule.failed_open_reasons ?? {}).map(([code, count]) => `${code} ${count}`);
  const errors = Object.entries(rule.error_reasons ?? {}).map(([code, count]) => `${code} ${count}`);
  return [
    `matched ${rule.matched}`,
    rule.event === "pre_tool_execution" ? `allowed ${rule.allowed}, denied ${rule.denied}` : `ran ${rule.ran}`,
    rule.failed_open > 0 ? `failed open ${rule.failed_open} (${reasons.join(", ")})` : null,
    rule.errors > 0 ? `errors ${rule.errors} (${errors.join(", ")})` : null,
    rule.not_run > 0 ? `not run ${rule.not_run}` : null,
  ]
    .filter(Boolean)
    .join(" · ");
}

export function CoveragePage({ query }) {
  const environment = query.get("environment") ?? "";
  const [state, setState] = useState({ report: null, error: null });
  useEffect(() => {
    const controller = new AbortController();
    const params = new URLSearchParams({ include_text: "true" });
    if (environment) params.set("environment", environment);
    setState({ report: null, error: null });
    getJson(`/emulator/hooks/coverage?${params}`, controller.signal)
      .then((report) => setState({ report, error: null }))
      .catch((error) => !controller.signal.aborted && setState({ report: null, error }));
    return () => controller.abort();
  }, [environment]);

  const { report, error } = state;
  return html`<main class="coverage">
    <header class="page-head">
      <h1>Hook coverage</h1>
      ${
        environment
          ? html`<span class="muted">of environment <${Link} class="mono" href=${links.environment(environment)}>${environment}<//>
              · <${Link} href=${links.coverage()}>all environments<//></span>`
          : html`<span class="muted">of every environment of this key</span>`
      }
    </header>
    <${ErrorBox} error=${error} />
    ${!report && !error ? html`<${Loading} />` : null}
    ${report ? html`<${Report} report=${report} />` : null}
  </main>`;
}

function Report({ report }) {
  const { summary } = report;
  return html`
    <p data-coverage-summary>
      ${summary.exercised} of ${summary.rules} rules exercised, ${summary.unexercised} unexercised, ${summary.disabled} disabled.
    </p>
    ${report.configs.length === 0 ? html`<p class="muted">No hooks.json was evaluated in this scope yet.</p>` : null}
    ${report.configs.map((config) => html`<${ConfigFile} config=${config} />`)}
    <section>
      <h2>Built-in tools</h2>
      <table class="table">
        <thead><tr><th>Tool</th><th>Calls</th><th>Evaluations a rule matched</th></tr></thead>
        <tbody>
          ${report.tools.map(
            (tool) => html`<tr data-tool=${tool.name} data-unmatched=${String(tool.matched === 0)}>
              <td class="mono">${tool.name}</td><td>${tool.calls}</td>
              <td>${tool.matched === 0 ? html`<${Badge} kind="coverage-deny">never matched<//>` : tool.matched}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </section>`;
}

function ConfigFile({ config }) {
  const byLine = new Map();
  for (const rule of config.rules) byLine.set(rule.line, [...(byLine.get(rule.line) ?? []), rule]);
  const lines = (config.text ?? "").replace(/\n$/, "").split("\n");
  return html`<section class="coverage-config" data-config-path=${config.path} data-sha256=${config.sha256}>
    <h2><span class="mono">${config.path}</span> <span class="muted mono small" title=${config.sha256}>sha256 ${config.sha256.slice(0, 12)}</span></h2>
    <div class="coverage-file">
      ${lines.map((text, index) => {
        const rules = byLine.get(index + 1) ?? [];
        return html`<div class=${`coverage-line${rules.length > 0 ? " has-rule" : ""}`} data-line=${index + 1} data-state=${rules[0]?.state}>
          <span class="line-number">${index + 1}</span><code class="line-text">${text}</code>
          ${rules.map((rule) => html`<span class="coverage-note"><${StateBadge} state=${rule.state} /> ${counts(rule)}</span>`)}
        </div>`;
      })}
    </div>
    <table class="table">
      <thead><tr><th>Line</th><th>Group</th><th>Event</th><th>Matcher</th><th>Handler</th><th>State</th><th>Counts</th></tr></thead>
      <tbody>
        ${config.rules.map(
          (rule) => html`<tr data-rule-line=${rule.line} data-handler=${rule.handler ?? ""} data-state=${rule.state}>
            <td>${rule.line}</td><td class="mono">${rule.group}</td><td class="mono">${rule.event}</td>
            <td class="mono">${rule.matcher ?? html`<span class="muted">(every tool)</span>`}</td>
            <td class="mono">${rule.handler ?? html`<span class="muted">(no valid handler)</span>`}</td>
            <td><${StateBadge} state=${rule.state} /></td><td>${counts(rule)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}
