// The key's fault rules (GET /emulator/faults, docs/faults.md#the-dashboard): what each targets, what it
// does, how many of its times are left (or its probability and seed) and how often it fired. Rules are
// set by tests through the API; the page can delete them, one or all, so a stuck rule is easy to clear.

import { useEffect, useState } from "preact/hooks";
import { deleteJson, getJson } from "../api.js";
import { ErrorBox, Loading } from "../components/bits.js";
import { formatTime } from "../format.js";
import { html } from "../html.js";
import { announceFaultsChanged } from "../components/faults-banner.js";

export function FaultsPage() {
  const [state, setState] = useState({ rules: null, error: null });
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    getJson("/emulator/faults", controller.signal)
      .then((body) => setState({ rules: body.rules, error: null }))
      .catch((error) => {
        if (!controller.signal.aborted) setState((old) => ({ rules: old.rules ?? [], error }));
      });
    return () => controller.abort();
  }, [reloads]);

  const remove = async (path) => {
    try {
      await deleteJson(path);
      announceFaultsChanged();
      setReloads((count) => count + 1);
    } catch (error) {
      setState((old) => ({ ...old, error }));
    }
  };

  return html`<main>
    <header class="page-head">
      <h1>Faults</h1>
      <button type="button" class="small" onClick=${() => setReloads((count) => count + 1)}>Refresh</button>
      ${state.rules?.length > 0 ? html`<button type="button" class="small" data-action="clear-faults" onClick=${() => remove("/emulator/faults")}>Delete all</button>` : null}
    </header>
    <p class="muted">Rules this key set with POST /emulator/faults. They live in memory: a restart clears them.</p>
    <${ErrorBox} error=${state.error} />
    ${state.rules === null ? html`<${Loading} />` : null}
    ${state.rules?.length === 0 ? html`<p class="muted">No fault rules: nothing is injected.</p>` : null}
    ${
      state.rules?.length > 0
        ? html`<table class="table faults">
            <thead><tr><th>ID</th><th>Target</th><th>Effect</th><th>Left</th><th class="num">Injected</th><th>Added</th><th></th></tr></thead>
            <tbody>
              ${state.rules.map(
                (rule) => html`<tr data-fault-id=${rule.id} class=${rule.remaining === 0 ? "spent" : ""}>
                  <td class="mono">${rule.id}</td>
                  <td class="mono">${describe(rule.target)}</td>
                  <td class="mono">${describe(rule.effect)}</td>
                  <td>${left(rule)}</td>
                  <td class="num">${rule.injected}</td>
                  <td>${formatTime(rule.create_time)}</td>
                  <td><button type="button" class="small" onClick=${() => remove(`/emulator/faults/${encodeURIComponent(rule.id)}`)}>Delete</button></td>
                </tr>`,
              )}
            </tbody>
          </table>`
        : null
    }
  </main>`;
}

/** `hook command="…"`: the kind, then its other fields as written. */
function describe(value) {
  const { kind, ...rest } = value;
  const fields = Object.entries(rest).map(([name, field]) => `${name}=${JSON.stringify(field)}`);
  return [kind, ...fields].join(" ");
}

function left(rule) {
  if (rule.remaining !== undefined) return rule.remaining === 0 ? "spent" : `${rule.remaining} of ${rule.times}`;
  return `probability ${rule.probability} (seed ${rule.seed})`;
}
