// One interaction as a timeline: its input, then each tool call with its arguments, the hooks before
// it, its result and the hooks after it, then the final answer. A call a hook denied and a call whose
// hook failed open are marked on the call itself, so they stand out in a long run.

import { html } from "../html.js";
import { Badge, Json, Output } from "./bits.js";
import { HookTraceView } from "./hook-trace.js";

const CALL_TYPES = new Set(["code_execution_call", "function_call", "mcp_server_tool_call"]);
const RESULT_TYPES = new Set(["code_execution_result", "function_result", "mcp_server_tool_result"]);

/** `hooks`: the tool_calls of GET /emulator/interactions/{id}/hooks (may lag a running interaction by a moment). */
export function Timeline({ steps, hooks, running }) {
  const resultsByCall = new Map();
  for (const step of steps) if (RESULT_TYPES.has(step?.type) && step.call_id) resultsByCall.set(step.call_id, step);
  const hooksByCall = new Map(hooks.map((entry) => [entry.call_id, entry]));
  const callIds = new Set(steps.filter((step) => CALL_TYPES.has(step?.type)).map((step) => step.id));
  const lastOutput = steps.findLastIndex((step) => step?.type === "model_output");
  const entries = [];
  steps.forEach((step, index) => {
    if (!step) return;
    if (CALL_TYPES.has(step.type)) {
      entries.push(
        html`<${CallEntry} key=${step.id} call=${step} result=${resultsByCall.get(step.id)} hooks=${hooksByCall.get(step.id)} running=${running} />`,
      );
    } else if (RESULT_TYPES.has(step.type) && callIds.has(step.call_id)) {
      // Shown with its call.
    } else if (step.type === "user_input") {
      entries.push(html`<${InputEntry} key=${`s${index}`} step=${step} />`);
    } else if (step.type === "model_output") {
      entries.push(html`<${AnswerEntry} key=${`s${index}`} step=${step} final=${index === lastOutput && !running} />`);
    } else if (step.type === "thought") {
      entries.push(html`<${ThoughtEntry} key=${`s${index}`} step=${step} />`);
    } else {
      entries.push(html`<${OtherEntry} key=${`s${index}`} step=${step} />`);
    }
  });
  return html`<ol class="timeline">${entries}</ol>`;
}

function InputEntry({ step }) {
  return html`<li class="entry input">
    <h3>Input</h3>
    ${step.content.map((part) =>
      part.type === "text"
        ? html`<pre class="code prose">${part.text}</pre>`
        : html`<p class="muted">[${part.type}${part.mime_type ? `: ${part.mime_type}` : ""}${part.uri ? ` at ${part.uri}` : part.data ? `, ${Math.round((part.data.length * 3) / 4)} bytes` : ""}]</p>`,
    )}
  </li>`;
}

function AnswerEntry({ step, final }) {
  const text = step.content
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("");
  return html`<li class=${`entry answer${final ? " final" : ""}`}>
    <h3>${final ? "Final answer" : "Model output"}</h3>
    <pre class="code prose">${text}</pre>
  </li>`;
}

/** A model's thought (a model-backed agent, docs/model-agent.md): its summary, folded away. */
function ThoughtEntry({ step }) {
  const text = (step.summary ?? [])
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("");
  return html`<li class="entry thought">
    <details>
      <summary><h3>Thought</h3></summary>
      <pre class="code prose">${text}</pre>
    </details>
  </li>`;
}

function OtherEntry({ step }) {
  return html`<li class="entry other">
    <h3>${step.type.replace(/_/g, " ")}</h3>
    <${Json} value=${step} />
  </li>`;
}

function CallEntry({ call, result, hooks, running }) {
  const name = call.type === "code_execution_call" ? "code_execution" : call.name;
  const denied = hooks?.pre?.decision === "deny";
  const failedOpen = hooks?.pre?.handlers.some((handler) => handler.fail_open) ?? false;
  const classes = ["entry", "call", denied ? "denied" : "", failedOpen ? "failed-open" : "", result?.is_error ? "is-error" : ""];
  return html`<li class=${classes.filter(Boolean).join(" ")} data-call-id=${call.id} data-tool=${name}>
    <h3>
      Call <code>${name}</code>${call.server_name ? html` on MCP server <code>${call.server_name}</code>` : null}
      ${denied ? html` <${Badge} kind="deny">denied by hook "${hooks.pre.denied_by?.group}"<//>` : null}
      ${failedOpen ? html` <${Badge} kind="fail-open">hook failed open<//>` : null}
      ${running && result?.is_error === undefined && !denied ? html` <${Badge} kind="running">running<//>` : null}
      ${result?.is_error && !denied ? html` <${Badge} kind="error">error<//>` : null}
    </h3>
    <${CallArguments} call=${call} />
    ${hooks?.pre ? html`<${HookTraceView} trace=${hooks.pre} title="Hooks before the call" />` : null}
    ${hooks?.hooks_not_run ? html`<p class="muted">No hooks: ${hooks.hooks_not_run.reason}</p>` : null}
    ${!hooks && running ? html`<p class="muted">Hooks: waiting for the trace…</p>` : null}
    ${result ? html`<${ResultView} result=${result} denied=${denied} output=${call.type === "code_execution_call"} />` : null}
    ${hooks?.post ? html`<${HookTraceView} trace=${hooks.post} title="Hooks after the call" />` : null}
    ${hooks?.pre && !hooks.post && result && !denied && !running ? html`<p class="muted small">No post_tool_execution trace.</p>` : null}
  </li>`;
}

function CallArguments({ call }) {
  if (call.type === "code_execution_call") {
    return html`<div class="arguments"><div class="output-label">${call.arguments.language ?? "bash"}</div><pre class="code">${call.arguments.code}</pre></div>`;
  }
  return html`<div class="arguments"><div class="output-label">arguments</div><${Json} value=${call.arguments} /></div>`;
}

/** `output`: the result is a command's stdout and stderr, as they came, then its status notes. */
function ResultView({ result, denied, output }) {
  const text = typeof result.result === "string" ? result.result : JSON.stringify(result.result, null, 2);
  const what = output ? ": stdout and stderr" : "";
  const label = denied ? "Result (the tool did not run)" : `Result${result.is_error ? " (error)" : ""}${what}`;
  return html`<div class="result"><${Output} text=${text} label=${label} error=${result.is_error} /></div>`;
}
