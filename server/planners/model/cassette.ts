// Record and replay of model turns (VCR, Polly.js): a team records a real session once
// (EMULATOR_MODEL_MODE=record) and replays it in CI forever with no network (EMULATOR_MODEL_MODE=replay),
// from the file EMULATOR_MODEL_CASSETTE names. The format and its normalisation: cassette-format.ts.
//
// record: each turn is asked of the live backend; the turn is stored when it ends (failed turns are not)
// and the file is rewritten whole, atomically, before the answer is returned. A record run starts the
// cassette afresh: its first stored turn replaces whatever the file held.
// replay: the file is read once, at the first turn; each request takes the first unused recorded turn
// whose request equals it, and its answer streams back through the sink. Anything else is a
// ModelBackendError("replay") that says how the request differs from the closest recorded one.

import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { type ModelAnswer, type ModelBackend, ModelBackendError, type ModelRequest, type ModelStreamSink } from "./model-backend.js";
import {
  type CassetteTurn,
  canonicalJson,
  compareKeys,
  type JsonObject,
  type JsonValue,
  jsonPath,
  normaliseForCassette,
  parseCassette,
  type RecordedAnswer,
  serialiseCassette,
} from "./cassette-format.js";

export interface CassetteOptions {
  /** EMULATOR_MODEL_CASSETTE. */
  file: string;
  /** EMULATOR_MODEL_MODE; `live` means no cassette, and then the caller does not wrap the backend. */
  mode: "record" | "replay";
  /** The model API keys, redacted from everything stored and matched. */
  secrets: string[];
  /** The name the replaying backend shows (the live backend's, which replay never creates). */
  backendName: string;
}

const WHAT_TO_DO =
  "Re-record the cassette with EMULATOR_MODEL_MODE=record, or make the run deterministic so it asks what the recorded run asked";

/** The backend that records into, or replays from, the cassette. Replay ignores `live`: it must never touch the network. */
export function withCassette(live: ModelBackend | null, options: CassetteOptions): ModelBackend {
  if (options.mode === "replay") return new CassettePlayer(options);
  if (live === null) throw new Error("withCassette: EMULATOR_MODEL_MODE=record needs the live backend to record from");
  return new CassetteRecorder(live, options);
}

class CassetteRecorder implements ModelBackend {
  readonly name: string;
  private readonly turns: CassetteTurn[] = [];
  /** The file's writes, one after another: a later snapshot must never be overtaken by an earlier one. */
  private writes: Promise<void> = Promise.resolve();
  private temporaryFiles = 0;

  constructor(
    private readonly live: ModelBackend,
    private readonly options: CassetteOptions,
  ) {
    this.name = live.name;
    // A fault stands in for the live server, so it reads as that server's failure (and is never recorded).
    if (live.timeoutMs !== undefined) this.timeoutMs = live.timeoutMs;
    if (live.injectedFailure) this.injectedFailure = live.injectedFailure.bind(live);
  }

  readonly timeoutMs?: number;
  readonly injectedFailure?: ModelBackend["injectedFailure"];

  async turn(request: ModelRequest, sink: ModelStreamSink, signal: AbortSignal): Promise<ModelAnswer> {
    // Taken before the turn: the caller may build its next request on the same objects once it has the answer.
    const recordedRequest = normaliseForCassette(request, this.options.secrets);
    const answer = await this.live.turn(request, sink, signal);
    // Turns are appended in the order they end, which is the order concurrent interactions saw their answers.
    this.turns.push({
      request: recordedRequest,
      answer: normaliseForCassette(storedAnswer(answer), this.options.secrets) as RecordedAnswer,
    });
    await this.persist();
    return { ...answer, source: "recorded" };
  }

  /** Resolves once a write that includes every turn stored so far is on disk. */
  private persist(): Promise<void> {
    const write = this.writes.then(() => this.writeWhole(serialiseCassette(this.turns)));
    this.writes = write.catch(() => undefined); // a failed write is the turn's error; the next one writes everything again
    return write;
  }

  /** Temp file in the same folder, then rename: a crash leaves the old file or the new one, never half of either. */
  private async writeWhole(text: string): Promise<void> {
    const { file } = this.options;
    const folder = path.dirname(file);
    const temporary = path.join(folder, `.${path.basename(file)}.${process.pid}.${++this.temporaryFiles}.tmp`);
    try {
      await mkdir(folder, { recursive: true });
      const handle = await open(temporary, "w");
      try {
        await handle.writeFile(text, "utf8");
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw new ModelBackendError(
        "replay",
        `Could not write the cassette ${file} (${describeError(error)}); make its folder writable, or point EMULATOR_MODEL_CASSETTE elsewhere`,
      );
    }
  }
}

/**
 * The answer's fields the cassette format knows (cassette-format.ts reads them back strictly), picked one by
 * one: `source` says how this run got the answer, not what it was, and a field a backend adds beyond
 * ModelAnswer would make the file unreadable.
 */
function storedAnswer(answer: ModelAnswer): RecordedAnswer {
  return {
    text: answer.text,
    ...(answer.thought !== undefined ? { thought: answer.thought } : {}),
    calls: answer.calls.map((call) => ({
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      ...(call.signature !== undefined ? { signature: call.signature } : {}),
    })),
    usage: { input: answer.usage.input, output: answer.usage.output, thought: answer.usage.thought },
  };
}

interface ReplayTurn extends CassetteTurn {
  /** canonicalJson of the request, to compare with the live request's. */
  key: string;
  used: boolean;
}

class CassettePlayer implements ModelBackend {
  readonly name: string;
  /** Read once: concurrent first turns share the read, and a file that failed to load fails every turn alike. */
  private loading: Promise<ReplayTurn[]> | undefined;

  constructor(private readonly options: CassetteOptions) {
    this.name = options.backendName;
  }

  async turn(request: ModelRequest, sink: ModelStreamSink, signal: AbortSignal): Promise<ModelAnswer> {
    signal.throwIfAborted();
    this.loading ??= this.load();
    const turns = await this.loading;
    signal.throwIfAborted();
    const wanted = normaliseForCassette(request, this.options.secrets);
    const key = canonicalJson(wanted);
    // Found and marked used with no await in between, so two concurrent turns never take the same one.
    const match = turns.find((turn) => !turn.used && turn.key === key);
    if (!match) throw new ModelBackendError("replay", this.mismatch(turns, wanted));
    match.used = true;
    const answer: RecordedAnswer = structuredClone(match.answer);
    playBack(answer, sink);
    return { ...answer, source: "replayed" };
  }

  private async load(): Promise<ReplayTurn[]> {
    const { file } = this.options;
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      const problem = isMissing(error) ? "does not exist" : `could not be read (${describeError(error)})`;
      throw new ModelBackendError(
        "replay",
        `The cassette ${file} ${problem}; record it first: run the session once with EMULATOR_MODEL_MODE=record against the live model`,
      );
    }
    const parsed = parseCassette(text);
    if ("problem" in parsed) {
      throw new ModelBackendError(
        "replay",
        `The cassette ${file} cannot be replayed: ${parsed.problem}; re-record it with EMULATOR_MODEL_MODE=record`,
      );
    }
    return parsed.turns.map((turn) => ({ ...turn, key: canonicalJson(turn.request), used: false }));
  }

  private mismatch(turns: readonly ReplayTurn[], wanted: JsonObject): string {
    const { file } = this.options;
    const unused = turns.map((turn, index) => ({ turn, number: index + 1 })).filter(({ turn }) => !turn.used);
    if (unused.length === 0) {
      const count = turns.length === 1 ? "1 turn" : `${turns.length} turns`;
      return `The cassette ${file} has ${count} and all were used; this run asks for one more. ${WHAT_TO_DO}`;
    }
    // The closest: the most leading messages in common (the same conversation so far), ties to the earliest.
    let closest = unused[0]!;
    let closestShared = -1;
    for (const candidate of unused) {
      const shared = sharedMessages(candidate.turn.request, wanted);
      if (shared > closestShared) [closest, closestShared] = [candidate, shared];
    }
    const difference = firstDifference(closest.turn.request, wanted, []);
    const how = difference
      ? `the first difference is ${jsonPath(difference.path)}: ${describePair(difference.recorded, difference.now)}`
      : "they differ in no way this comparison can name";
    return `The cassette ${file} has no answer for this request: compared with recorded turn ${closest.number} (the unused turn closest to it), ${how}. ${WHAT_TO_DO}`;
  }
}

/** The answer through the sink as a stream would bring it: the thought, then the text in a few deltas. */
function playBack(answer: RecordedAnswer, sink: ModelStreamSink): void {
  if (answer.thought) sink.thought(answer.thought);
  for (const piece of textPieces(answer.text)) sink.text(piece);
}

/** The text split at whitespace into at most `most` pieces that join back to it; none for empty text. */
export function textPieces(text: string, most = 4): string[] {
  // Each word with the whitespace after it; leading whitespace goes with the first word, and text that is
  // only whitespace is one piece.
  const words = text.match(/\s*\S+\s*/g) ?? (text === "" ? [] : [text]);
  const perPiece = Math.ceil(words.length / most);
  const pieces: string[] = [];
  for (let start = 0; start < words.length; start += perPiece) pieces.push(words.slice(start, start + perPiece).join(""));
  return pieces;
}

function sharedMessages(recorded: JsonObject, wanted: JsonObject): number {
  const left = Array.isArray(recorded["messages"]) ? recorded["messages"] : [];
  const right = Array.isArray(wanted["messages"]) ? wanted["messages"] : [];
  let shared = 0;
  while (shared < left.length && shared < right.length && canonicalJson(left[shared]!) === canonicalJson(right[shared]!)) shared++;
  return shared;
}

interface Difference {
  path: (string | number)[];
  /** undefined: there is nothing at this path on that side. */
  recorded: JsonValue | undefined;
  now: JsonValue | undefined;
}

/** The first place the two differ, walking arrays in order and object keys sorted (the file's order). */
function firstDifference(recorded: JsonValue | undefined, now: JsonValue | undefined, at: (string | number)[]): Difference | null {
  if (Array.isArray(recorded) && Array.isArray(now)) {
    for (let index = 0; index < Math.max(recorded.length, now.length); index++) {
      const found = firstDifference(recorded[index], now[index], [...at, index]);
      if (found) return found;
    }
    return null;
  }
  if (isObject(recorded) && isObject(now)) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(now)])].sort(compareKeys);
    for (const key of keys) {
      const found = firstDifference(
        Object.hasOwn(recorded, key) ? recorded[key] : undefined,
        Object.hasOwn(now, key) ? now[key] : undefined,
        [...at, key],
      );
      if (found) return found;
    }
    return null;
  }
  if (recorded !== undefined && now !== undefined && canonicalJson(recorded) === canonicalJson(now)) return null;
  return { path: at, recorded, now };
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const SHOWN_BEFORE = 16;
const SHOWN_AFTER = 24;
const SHOWN_JSON = 60;

/** `recorded "total 4\n…" (312 chars), now "total 8\n…" (318 chars)`: long values cut around where they part. */
function describePair(recorded: JsonValue | undefined, now: JsonValue | undefined): string {
  if (typeof recorded === "string" && typeof now === "string") {
    let parting = 0;
    while (parting < recorded.length && parting < now.length && recorded[parting] === now[parting]) parting++;
    return `recorded ${describeString(recorded, parting)}, now ${describeString(now, parting)}`;
  }
  return `recorded ${describeValue(recorded)}, now ${describeValue(now)}`;
}

function describeString(text: string, parting: number): string {
  const start = Math.max(0, parting - SHOWN_BEFORE);
  let end = Math.min(text.length, parting + SHOWN_AFTER);
  // Tool outputs are lines: stop at the end of the line where the two part.
  const lineEnd = text.indexOf("\n", parting);
  if (lineEnd >= 0 && lineEnd < end) end = lineEnd + 1;
  if (start === 0 && end === text.length) return JSON.stringify(text);
  const shown = JSON.stringify(text.slice(start, end)).slice(1, -1);
  return `"${start > 0 ? "…" : ""}${shown}${end < text.length ? "…" : ""}" (${text.length} chars)`;
}

function describeValue(value: JsonValue | undefined): string {
  if (value === undefined) return "nothing";
  const json = canonicalJson(value);
  return json.length <= SHOWN_JSON ? json : `${json.slice(0, SHOWN_JSON)}… (${json.length} chars of JSON)`;
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === "ENOENT";
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
