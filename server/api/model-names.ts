// The models an interaction may name. One definition: the service's OpenAPI document
// (schemas/interactions.openapi.json, `ModelOption`) lists the models it knows, which include names that
// are not `gemini-*` (gemma-4-31b-it, lyria-3-clip-preview, nano-banana-pro-preview, …); the emulator also
// takes any `gemini-*` name, since new ones appear faster than documents (docs/fidelity.md, "models").

import fs from "node:fs";
import { openApiFile } from "../common/paths.js";

/** [choice] Models this emulator runs beyond the document's list: any `gemini-*` name. */
export const EMULATED_MODEL_PREFIX = "gemini-";

let documented: ReadonlySet<string> | undefined;

/** The `ModelOption` enum of the vendored OpenAPI document, read once. */
export function documentedModels(): ReadonlySet<string> {
  if (documented === undefined) {
    const document = JSON.parse(fs.readFileSync(openApiFile, "utf8")) as {
      components?: { schemas?: { ModelOption?: { enum?: unknown } } };
    };
    const names = document.components?.schemas?.ModelOption?.enum;
    documented = new Set(Array.isArray(names) ? names.filter((name): name is string => typeof name === "string") : []);
  }
  return documented;
}

/** Whether the emulator runs a model of this name: one the document lists, or any `gemini-*`. */
export function isEmulatedModel(name: string): boolean {
  return name.startsWith(EMULATED_MODEL_PREFIX) || documentedModels().has(name);
}
