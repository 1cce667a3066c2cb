// The API reference's samples: the `x-codeSamples` of the service's OpenAPI document
// (schemas/interactions.openapi.json), which the reference pages on ai.google.dev (ai.google.dev/api/…)
// show as their code examples. Each is named `operationId lang label` (`CreateAgent sh with_sources`).
// A test that runs one declares it with a `// reference-sample: operationId label (langs)` line
// (test/integration/reference-samples.test.ts); REFERENCE_SAMPLE_NOTES says what a run shows when it is
// not simply served (needs a model, an outside host, a defect of the sample) and why a sample is not run.
// docs/coverage.md lists every sample of the document with its result; a sample neither declared nor
// noted is a problem (`npm run coverage` writes nothing, the staleness test fails) until it is handled.

import type { OpenApiDocument } from "./openapi-surface.js";

export type ReferenceSampleResult = "served" | "needs a model" | "outside host" | "not run" | "fails";

export interface ReferenceSample {
  operationId: string;
  lang: string;
  label: string;
  /** The sample's code as the document holds it. */
  source: string;
}

export interface ReferenceSampleNote {
  /** The samples it is about: any field left out matches every sample. */
  operationId?: string;
  label?: string;
  langs?: readonly string[];
  result: ReferenceSampleResult;
  why: string;
}

/** One `// reference-sample:` (or `// reference-sample (fails):`) line of a test file. */
export interface ReferenceSampleLine {
  operationId: string;
  label: string;
  langs: string[];
  fails: boolean;
  file: string;
}

export interface ReferenceSampleRow {
  operationId: string;
  lang: string;
  label: string;
  result: ReferenceSampleResult | "no test yet";
  tests: string[];
  why?: string;
}

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"];
const NAME = (sample: { operationId: string; lang: string; label: string }) => `${sample.operationId} ${sample.lang} ${sample.label}`;

/** Every x-codeSamples entry of the document, in the document's order. */
export function referenceSamples(document: OpenApiDocument): ReferenceSample[] {
  const samples: ReferenceSample[] = [];
  for (const item of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as {
        operationId?: string;
        "x-codeSamples"?: Array<{ lang?: string; label?: string; source?: string }>;
      };
      for (const sample of operation?.["x-codeSamples"] ?? []) {
        samples.push({
          operationId: operation.operationId ?? `${method} route`,
          lang: sample.lang ?? "",
          label: sample.label ?? "",
          source: sample.source ?? "",
        });
      }
    }
  }
  return samples;
}

/** The one sample named, from the document: a test reads the code it runs from here, never a copy. */
export function referenceSample(document: OpenApiDocument, operationId: string, lang: string, label: string): ReferenceSample {
  const found = referenceSamples(document).find((sample) => NAME(sample) === NAME({ operationId, lang, label }));
  if (!found) throw new Error(`the OpenAPI document has no sample ${operationId} ${lang} ${label}`);
  return found;
}

const LINE = /^\s*\/\/\s*reference-sample( \(fails\))?:\s*(\S+)\s+(\S+)\s+\(([^)]*)\)\s*$/gm;

/** The `// reference-sample:` lines of one test file. */
export function referenceSampleLinesOf(text: string, file: string): ReferenceSampleLine[] {
  return [...text.matchAll(LINE)].map((match) => ({
    operationId: match[2] ?? "",
    label: match[3] ?? "",
    langs: (match[4] ?? "").split(/[\s,]+/).filter((lang) => lang !== ""),
    fails: match[1] !== undefined,
    file,
  }));
}

const matches = (note: ReferenceSampleNote, sample: ReferenceSample) =>
  (note.operationId === undefined || note.operationId === sample.operationId) &&
  (note.label === undefined || note.label === sample.label) &&
  (note.langs === undefined || note.langs.includes(sample.lang));

/** Each sample of the document with its result, and what is wrong with the declarations (a row no test or note handles, a line or note naming no sample). */
export function referenceSampleRows(
  samples: readonly ReferenceSample[],
  lines: readonly ReferenceSampleLine[],
  notes: readonly ReferenceSampleNote[],
): { rows: ReferenceSampleRow[]; problems: string[] } {
  const problems: string[] = [];
  const names = new Set(samples.map(NAME));
  for (const line of lines) {
    for (const lang of line.langs) {
      const name = NAME({ ...line, lang });
      if (!names.has(name)) problems.push(`${line.file}: reference-sample ${name} is not a sample of the OpenAPI document`);
    }
  }
  for (const note of notes) {
    if (!samples.some((sample) => matches(note, sample))) {
      problems.push(
        `reference sample note (${note.operationId ?? "*"} ${note.label ?? "*"} ${note.langs?.join(",") ?? "*"}) names no sample`,
      );
    }
  }
  const rows = samples.map((sample): ReferenceSampleRow => {
    const declared = lines.filter(
      (line) => line.operationId === sample.operationId && line.label === sample.label && line.langs.includes(sample.lang),
    );
    const tests = [...new Set(declared.map((line) => line.file))].sort();
    const note = notes.find((candidate) => matches(candidate, sample));
    const row = { operationId: sample.operationId, lang: sample.lang, label: sample.label, tests };
    if (note) return { ...row, result: note.result, why: note.why };
    if (declared.length > 0) return { ...row, result: declared.some((line) => line.fails) ? "fails" : "served" };
    problems.push(
      `${NAME(sample)}: a sample of the OpenAPI document with no test and no note (test/integration/reference-samples.test.ts)`,
    );
    return { ...row, result: "no test yet" };
  });
  return { rows, problems };
}

const MODEL = "the emulator answers a `gemini-*` model with its scripted planner (or the model agent's model, docs/model-agent.md)";

/** What the runs of the samples that are not simply served show, and why the others are not run. */
export const REFERENCE_SAMPLE_NOTES: readonly ReferenceSampleNote[] = [
  {
    langs: ["java"],
    result: "not run",
    why: "no Java SDK here: the samples are fragments for com.google.genai's `gaos` models, which are not on this machine, and Maven Central is not reachable from it (a JDK 17 is). Each sends the request of the same label's sh sample, which runs",
  },
  {
    operationId: "GetEnvironmentFiles",
    label: "get_file",
    langs: ["python"],
    result: "not run",
    why: "a defect of the sample: google-genai 2.25 has no `environments.files.get` (AttributeError before any request; the test checks it still fails so). The JavaScript sample sends the same request with `files.list(path: 'main.py')`, served",
  },
  {
    operationId: "CreateInteraction",
    label: "simple",
    result: "needs a model",
    why: `${MODEL}: the run is checked completed on gemini-3.6-flash with the printed answer the interaction's`,
  },
  {
    operationId: "CreateInteraction",
    label: "multi_turn",
    result: "needs a model",
    why: `${MODEL}: checked completed with the three turns kept as the input, the answer to the last one printed`,
  },
  {
    operationId: "CreateInteraction",
    label: "multimodal_image",
    result: "needs a model",
    why: `${MODEL}, which reads text only: \`BASE64_ENCODED_IMAGE\` replaced by a real 1×1 PNG; checked completed with the image counted in the usage by modality`,
  },
  {
    operationId: "CreateInteraction",
    label: "function_calling",
    result: "needs a model",
    why: `${MODEL}: checked completed with the get_weather declaration kept; a model would end at a function_call step, the scripted planner answers text`,
  },
  {
    operationId: "CreateInteraction",
    label: "deep_research",
    result: "outside host",
    why: "Deep Research is the service's own agent, which searches the web: the emulator refuses `deep-research-*` with a 400 that names the agents it runs (checked: the sample exits non-zero with that message)",
  },
  {
    operationId: "CreateInteraction",
    label: "antigravity",
    result: "outside host",
    why: 'the agent is asked to read Hacker News (an outside host) and summarize it (a model): checked completed in a fresh sandbox (`environment: "remote"`, its environment_id live)',
  },
  {
    operationId: "CreateInteraction",
    label: "reuse_env",
    result: "needs a model",
    why: "the script's text is a model's: checked the second interaction ran in the first one's environment (same environment_id, previous_interaction_id), where the first wrote /workspace/hello.py",
  },
  {
    operationId: "CreateInteraction",
    label: "with_sources",
    result: "needs a model",
    why: "the summary is a model's: checked the sandbox holds the repository (github.com/octocat/Spoon-Knife from a local stand-in, EMULATOR_REPO_MAP) at /workspace/repo and the inline notes.txt",
  },
  {
    operationId: "CreateInteraction",
    label: "custom_agent",
    result: "needs a model",
    why: "the review is a model's: checked the agent was created with its repository source (a local stand-in for github.com/octocat/Spoon-Knife) and instruction, and its interaction ran in a sandbox holding /workspace/repo",
  },
  {
    operationId: "CreateAgent",
    label: "with_sources",
    result: "served",
    why: "the repository github.com/my-org/analysis-templates is a local stand-in (EMULATOR_REPO_MAP); checked the agent's interaction starts with .agents/AGENTS.md and /workspace/templates",
  },
  {
    operationId: "CreateAgent",
    label: "fork_from_env",
    result: "served",
    why: "step 1's template is written by the scripted planner (its text would be a model's); checked the agent's base_environment is that environment, holding /workspace/template.py",
  },
  {
    operationId: "cancelInteractionById",
    label: "cancel",
    result: "served",
    why: "the emulator's planner would finish the essay at once: a fault rule (`queued`, docs/faults.md) holds the background interaction running, as a model's long essay would; checked it ends `cancelled`",
  },
];
