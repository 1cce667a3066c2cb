// The cassette file (cassette.ts): {"version": 1, "turns": [{"request": …, "answer": …}]}, one turn per
// model turn in the order the turns ended. It is meant to be committed and reviewed, so it is written the
// same way every time: keys of every object sorted, 2-space indentation, a trailing newline, and nothing
// in it that changes between two runs of one session (no timestamps, latencies or random IDs; the
// answer's `source` is not stored, since it says how this run got the answer, not what it was).
//
// Normalisation, applied to a request before it is stored or matched and to an answer before it is stored:
// - a JSON round trip: properties whose value is undefined disappear (`system: undefined` equals no
//   `system`), as in the file, so a request read back equals the request that was written;
// - every secret (the model API keys) is replaced by [redacted] in every string and key, defensively:
//   a key has no business in a request, but if one gets there it must not get into a committed file,
//   and matching redacts the live request the same way so such a request still matches;
// - keys are sorted when the JSON is written (canonicalJson), so key order never matters.
// Nothing else: the planner builds requests deterministically (model-backend.ts), and tool call IDs are
// the model's or derived from the turn, never random.

import { z } from "zod";

export const CASSETTE_VERSION = 1;

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export const REDACTED = "[redacted]";

// A request is validated for shape (so a hand-edited cassette fails early, naming the field) but read
// loosely: a field the planner adds later is kept and matched rather than silently dropped.
const toolCall = z.looseObject({ id: z.string(), name: z.string(), arguments: z.string() });
const toolResult = z.looseObject({ id: z.string(), name: z.string(), output: z.string(), isError: z.boolean() });
const message = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("user"), text: z.string() }),
  z.looseObject({ role: z.literal("model"), text: z.string(), calls: z.array(toolCall) }),
  z.looseObject({ role: z.literal("tool"), results: z.array(toolResult) }),
]);
const jsonObject = z.record(z.string(), z.unknown());
const request = z.looseObject({
  model: z.string(),
  system: z.string().optional(),
  messages: z.array(message),
  tools: z.array(z.looseObject({ name: z.string(), description: z.string(), parameters: jsonObject })),
  generation: jsonObject.optional(),
  json: z.looseObject({ schema: jsonObject.optional() }).optional(),
});

// An answer is played back to the planner as a ModelAnswer, so it is read strictly: a misspelt field
// would otherwise vanish and the replayed run would differ from the recorded one without saying why.
const count = z.number().int().nonnegative();
const answer = z.strictObject({
  text: z.string(),
  thought: z.string().optional(),
  calls: z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.string(), signature: z.string().optional() })),
  usage: z.strictObject({ input: count, output: count, thought: count }),
});

const cassetteSchema = z.strictObject({
  version: z.literal(CASSETTE_VERSION, { error: `only version ${CASSETTE_VERSION} is supported` }),
  turns: z.array(z.strictObject({ request, answer })),
});

export type RecordedAnswer = z.infer<typeof answer>;

/** One turn as stored: the normalised request (kept as JSON, to compare) and the answer. */
export interface CassetteTurn {
  request: JsonObject;
  answer: RecordedAnswer;
}

/** The JSON a value stands for, with the secrets redacted (see the normalisation above). */
export function normaliseForCassette(value: object, secrets: readonly string[]): JsonObject {
  const redactions = [...new Set(secrets)].filter((secret) => secret.length > 0).sort((a, b) => b.length - a.length);
  const redact = (text: string): string => redactions.reduce((result, secret) => result.split(secret).join(REDACTED), text);
  const json: unknown = JSON.parse(JSON.stringify(value), (_key, item: unknown) => {
    if (typeof item === "string") return redact(item);
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    // The reviver sees objects after their members, so only the keys are left to redact here.
    return Object.fromEntries(Object.entries(item).map(([name, member]) => [redact(name), member]));
  });
  return json as JsonObject; // JSON.parse of an object's JSON is a JSON object
}

/**
 * JSON with the keys of every object sorted by code unit (not JSON.stringify's order, which puts
 * integer-like keys first whatever their insertion), indented by `indent` spaces, or compact when 0.
 */
export function canonicalJson(value: JsonValue, indent = 0, depth = 0): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const inner = indent > 0 ? `\n${" ".repeat(indent * (depth + 1))}` : "";
  const outer = indent > 0 ? `\n${" ".repeat(indent * depth)}` : "";
  const colon = indent > 0 ? ": " : ":";
  const items = Array.isArray(value)
    ? value.map((item) => canonicalJson(item, indent, depth + 1))
    : Object.keys(value)
        .sort(compareKeys)
        .map((key) => `${JSON.stringify(key)}${colon}${canonicalJson(value[key]!, indent, depth + 1)}`);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  if (items.length === 0) return `${open}${close}`;
  return `${open}${inner}${items.join(`,${inner}`)}${outer}${close}`;
}

/** Code-unit order, the same on every machine (localeCompare depends on the locale). */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The whole file's text. */
export function serialiseCassette(turns: readonly CassetteTurn[]): string {
  const file = { version: CASSETTE_VERSION, turns: turns.map((turn) => ({ request: turn.request, answer: turn.answer })) };
  // The answer type is JSON by construction (its schema has only JSON members).
  return `${canonicalJson(file as unknown as JsonValue, 2)}\n`;
}

/** The turns of a cassette file's text, or why it is not one (one sentence, naming the field). */
export function parseCassette(text: string): { turns: CassetteTurn[] } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { problem: `it is not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const parsed = cassetteSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `${jsonPath(issue.path)}: ` : "";
    return { problem: `it is not a version ${CASSETTE_VERSION} cassette (${where}${issue.message})` };
  }
  // The requests are kept as they were read (the schema's output would be the same JSON, re-typed).
  const rawTurns = (json as { turns: { request: JsonObject }[] }).turns;
  return { turns: parsed.data.turns.map((turn, index) => ({ request: rawTurns[index]!.request, answer: turn.answer })) };
}

/** `messages[2].results[0].output`, with keys that are not identifiers quoted: `parameters["a-b"]`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((result, key) => {
    if (typeof key === "number") return `${result}[${key}]`;
    const name = String(key);
    if (/^[A-Za-z_$][\w$]*$/.test(name)) return result === "" ? name : `${result}.${name}`;
    return `${result}[${JSON.stringify(name)}]`;
  }, "");
}
