// One interaction: what it is (status, agent, environment, timing, usage, errors) and its timeline. A
// running interaction is followed live over its own event stream (GET /{v}/interactions/{id}?stream=true,
// which replays every event so far and then the new ones), and its hook trace is read again after each
// step, so calls, hook decisions, output and the answer appear as they happen.

import { useEffect, useState } from "preact/hooks";
import { getJson, postJson, readEventStream, V } from "../api.js";
import { Badge, ErrorBox, Facts, Loading, StatusBadge } from "../components/bits.js";
import { Timeline } from "../components/timeline.js";
import { durationBetween, formatTime, plural } from "../format.js";
import { html } from "../html.js";
import { Link, links } from "../router.js";

export function InteractionPage({ id }) {
  const { interaction, hooks, error, live } = useInteraction(id);
  const modelTurns = useModelTurns(id, interaction?.status);
  const [cancelError, setCancelError] = useState(null);
  if (error && !interaction) return html`<main><h1 class="mono">${id}</h1><${ErrorBox} error=${error} /></main>`;
  if (!interaction) return html`<main><${Loading} /></main>`;
  const running = interaction.status === "in_progress" || interaction.status === "queued";
  const denied = hooks.filter((entry) => entry.pre?.decision === "deny").length;
  const failedOpen = hooks.reduce((count, entry) => count + (entry.pre?.handlers.filter((handler) => handler.fail_open).length ?? 0), 0);
  const cancel = async () => {
    setCancelError(null);
    try {
      await postJson(`${V}/interactions/${encodeURIComponent(id)}/cancel`);
    } catch (failure) {
      setCancelError(failure);
    }
  };

  return html`<main class="interaction">
    <header class="page-head">
      <h1><span class="muted">Interaction</span> <span class="mono">${interaction.id}</span></h1>
      <${StatusBadge} status=${interaction.status} />
      ${running ? html`<${Badge} kind=${live ? "live" : "offline"}>${live ? "following live" : "reconnecting"}<//>` : null}
      ${running ? html`<button type="button" class="danger" onClick=${cancel}>Cancel</button>` : null}
    </header>
    <${ErrorBox} error=${cancelError} />
    <${Facts}
      items=${[
        [interaction.agent ? "Agent" : "Model", interaction.agent ?? interaction.model],
        [
          "Environment",
          interaction.environment_id
            ? html`<${Link} class="mono" href=${links.environment(interaction.environment_id)}>${interaction.environment_id}<//>`
            : "none",
        ],
        [
          "Continues",
          interaction.previous_interaction_id
            ? html`<${Link} class="mono" href=${links.interaction(interaction.previous_interaction_id)}>${interaction.previous_interaction_id}<//>`
            : null,
        ],
        ["Created", formatTime(interaction.created)],
        [running ? "Running for" : "Took", durationBetween(interaction.created, running ? new Date().toISOString() : interaction.updated)],
        ["Tool calls", String(hooks.length)],
        [
          "Hooks",
          denied || failedOpen
            ? html`<span class="alert">${plural(denied, "call")} denied, ${plural(failedOpen, "hook")} failed open</span>`
            : "no denials, no fail-open",
        ],
      ]}
    />
    ${(interaction.errors ?? []).map((failure) => html`<div class="error-box" role="alert"><strong>${failure.code}</strong>: ${failure.message}</div>`)}
    <${ErrorBox} error=${error} />
    <h2>Timeline</h2>
    <${Timeline} steps=${interaction.steps ?? []} hooks=${hooks} running=${running} />
    <${ModelTurns} turns=${modelTurns} />
    ${interaction.usage ? html`<${UsageTable} usage=${interaction.usage} reported=${modelTurns.length > 0} />` : null}
  </main>`;
}

/** Each turn of the model behind a model-driven agent (docs/model-agent.md#the-dashboard). */
function ModelTurns({ turns }) {
  if (turns.length === 0) return null;
  return html`<section class="model-turns">
    <h2>Model turns</h2>
    <table class="table">
      <thead><tr><th>Turn</th><th>Backend</th><th>Model</th><th>Input</th><th>Output</th><th>Thought</th><th>Latency</th><th>Source</th></tr></thead>
      <tbody>
        ${turns.map(
          (turn) => html`<tr data-turn=${turn.turn}>
            <td class="num">${turn.turn}</td>
            <td>${turn.backend}</td>
            <td class="mono">${turn.model}</td>
            <td class="num">${turn.input_tokens}</td>
            <td class="num">${turn.output_tokens}</td>
            <td class="num">${turn.thought_tokens}</td>
            <td class="num">${turn.latency_ms} ms</td>
            <td><${Badge} kind=${turn.source === "replayed" ? "offline" : "live"}>${turn.source}<//></td>
          </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function UsageTable({ usage, reported }) {
  const rows = [
    ["Input", usage.total_input_tokens],
    ["Output", usage.total_output_tokens],
    ["Tool use", usage.total_tool_use_tokens],
    ["Thought", usage.total_thought_tokens],
    ["Cached", usage.total_cached_tokens],
    ["Total", usage.total_tokens],
  ];
  return html`<section class="usage">
    <h2>Usage</h2>
    <table class="table narrow">
      <tbody>${rows.map(([name, value]) => html`<tr><th>${name}</th><td class="num">${value ?? 0}</td></tr>`)}</tbody>
    </table>
    <p class="muted small">
      ${reported ? "Tokens as the model reported them, summed over its turns (docs/model-agent.md#usage)." : "Tokens by the emulator's fixed counting rule (docs/api.md#usage)."}
    </p>
  </section>`;
}

/** The model turns of the interaction, read again when its status changes (they are kept when its run ends). */
function useModelTurns(id, status) {
  const [turns, setTurns] = useState([]);
  useEffect(() => {
    if (status === undefined || status === "in_progress") return undefined;
    const controller = new AbortController();
    getJson(`/emulator/interactions/${encodeURIComponent(id)}/model-turns`, controller.signal)
      .then((answer) => setTurns(answer.turns))
      // The turns are a side panel: the page shows the interaction without them if they cannot be read.
      .catch(() => undefined);
    return () => controller.abort();
  }, [id, status]);
  return turns;
}

/** The interaction, followed live while it runs, and its hook trace. */
function useInteraction(id) {
  const [state, setState] = useState({ interaction: null, hooks: [], error: null, live: false });

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    const path = `${V}/interactions/${encodeURIComponent(id)}`;
    const hooksPath = `/emulator/interactions/${encodeURIComponent(id)}/hooks`;
    const set = (change) => !signal.aborted && setState((old) => ({ ...old, ...change }));
    let hooksQueued = false;
    const refreshHooks = () => {
      if (hooksQueued) return;
      hooksQueued = true;
      setTimeout(async () => {
        hooksQueued = false;
        try {
          set({ hooks: (await getJson(hooksPath, signal)).tool_calls });
        } catch (error) {
          if (!signal.aborted) set({ error });
        }
      }, 150);
    };

    const follow = async () => {
      let interaction = null;
      let steps = [];
      const show = () => set({ interaction: { ...interaction, steps: [...steps] } });
      await readEventStream(`${path}?stream=true`, {
        signal,
        onOpen: () => set({ live: true }),
        onEvent: (event) => {
          switch (event.event_type) {
            case "interaction.created":
              interaction = event.interaction;
              steps = [];
              break;
            case "interaction.status_update":
              interaction = { ...interaction, status: event.status, ...(event.usage ? { usage: event.usage } : {}) };
              break;
            case "step.start":
              steps[event.index] = structuredClone(event.step);
              break;
            case "step.delta":
              applyDelta(steps, event.index, event.delta);
              break;
            case "step.stop":
              if (event.usage) interaction = { ...interaction, usage: event.usage };
              refreshHooks();
              break;
            case "interaction.completed":
              interaction = event.interaction;
              steps = event.interaction.steps ?? steps;
              refreshHooks();
              break;
            default:
              break;
          }
          if (interaction) show();
        },
      });
      set({ live: false });
    };

    const load = async () => {
      try {
        const [interaction, hooks] = await Promise.all([getJson(path, signal), getJson(hooksPath, signal)]);
        setState({ interaction, hooks: hooks.tool_calls, error: null, live: false });
        // Followed until it ends; after a broken stream, the next attempt replays it from the start.
        let status = interaction.status;
        for (let attempt = 0; (status === "in_progress" || status === "queued") && !signal.aborted; attempt++) {
          try {
            await follow();
          } catch (error) {
            if (signal.aborted) return;
            set({ error, live: false });
            await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 500 * 2 ** attempt)));
          }
          const now = await getJson(path, signal);
          status = now.status;
          set({ interaction: now, error: null });
        }
        if (!signal.aborted) set({ hooks: (await getJson(hooksPath, signal)).tool_calls });
      } catch (error) {
        if (!signal.aborted) set({ error });
      }
    };
    setState({ interaction: null, hooks: [], error: null, live: false });
    void load();
    return () => controller.abort();
  }, [id]);

  return state;
}

/** As the emulator accumulates a stream (server/interactions/step-accumulator.ts). */
function applyDelta(steps, index, delta) {
  const step = steps[index];
  if (!step) return;
  if (delta.type === "text") {
    const last = step.content?.[step.content.length - 1];
    if (last?.type === "text") last.text += delta.text;
    else step.content?.push({ type: "text", text: delta.text });
    return;
  }
  if (typeof step.result === "string") step.result += delta.result;
  if (delta.is_error !== undefined) step.is_error = delta.is_error;
  if (delta.name !== undefined) step.name = delta.name;
  if (delta.server_name !== undefined) step.server_name = delta.server_name;
}
