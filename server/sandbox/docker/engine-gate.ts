// Every call to the Docker engine passes here (dockerode's one way out, modem.dial, is wrapped), so that
// an engine which accepts connections but never answers (Debian's Docker 20.10 deadlocked in libnetwork
// under churn: `docker version` answered, every create, inspect and remove hung for 13 minutes) costs
// the emulator seconds, not requests held for ever:
//
// - each call has a deadline by its kind (engine-calls.ts); past it the caller gets a
//   RuntimeUnreachableError (a 503 UNAVAILABLE) and the request to the engine is aborted, so its
//   connection is not left open;
// - at most `maxCalls` calls are in flight at once, and at most `maxChanges` of them create, start or
//   remove something; a caller beyond that waits, at most its call's deadline, for a place;
// - a look-up or a change past its deadline marks the engine "not answering": from then on every new
//   call fails at once, naming the engine and since when, until a probe answers again. The probe asks
//   the version and then inspects a container the engine answered for before: an inspect takes the
//   locks the deadlock held, where `/_ping` and `/version` do not. It runs again every RECHECK_MS while
//   the engine is marked, so the emulator recovers on its own, and on /health;
// - /health answers from the last probe's answer while it is recent, and asks again in the background
//   (health() below): a busy engine slows the probe, never /health; an engine marked not answering, or a
//   probe without an answer for /health's wait, shows at once;
// - containers whose creation got no answer (the engine may still make them once it is free again), and
//   removals that failed meanwhile, are removed once the engine answers again.
//
// A hijacked exec (an executor's channel) holds its place only until the engine upgraded the connection.

import type Docker from "dockerode";
import { RuntimeUnreachableError, type RuntimeHealth } from "../runtime.js";
import { deadlineOf, engineCall, type EngineCall } from "./engine-calls.js";

export interface EngineGateSettings {
  /** EMULATOR_ENGINE_TIMEOUT_SECONDS in ms: a look-up's deadline; other kinds get a multiple of it. */
  timeoutMs: number;
  /** EMULATOR_ENGINE_MAX_CALLS: calls in flight at once. */
  maxCalls: number;
  /** EMULATOR_ENGINE_MAX_CONTAINER_CHANGES: of those, creates, starts and removals at once. */
  maxChanges: number;
  /** How old the last probe's answer may be before /health asks again in the background (HEALTH_REFRESH_MS by default; tests shorten it). */
  healthRefreshMs?: number;
  /** How old it may be and still be /health's answer (HEALTH_MAX_AGE_MS by default). */
  healthMaxAgeMs?: number;
}

type DialCallback = (error: unknown, result?: unknown) => void;

/** What dockerode hands modem.dial (the fields the gate reads or sets). */
interface DialOptions {
  path: string;
  method: string;
  options?: Record<string, unknown>;
  abortSignal?: AbortSignal;
  hijack?: boolean;
  isStream?: boolean;
  openStdin?: boolean;
  statusCodes: Record<number, unknown>;
}

interface Modem {
  dial(options: DialOptions, callback: DialCallback): void;
}

/** How often a marked engine is asked again. */
const RECHECK_MS = 1000;
/** How many containers the gate remembers (the probe needs one) and how many clean-ups it keeps for later. */
const MAX_REMEMBERED = 256;
/**
 * [choice] /health answers from the probe's last answer while it is younger than HEALTH_MAX_AGE_MS, and
 * starts a new probe in the background once it is older than HEALTH_REFRESH_MS: polled every second or
 * more often, /health never waits for the engine, whose answer to the probe took up to 0.7 s on two
 * saturated cores (docs/benchmarks.md, throughput under concurrency). An engine that stops answering
 * shows at most HEALTH_REFRESH_MS later than when every /health asked (a probe then goes unanswered for
 * /health's wait, and that shows at once), and one marked not answering shows at once.
 */
const HEALTH_REFRESH_MS = 1000;
const HEALTH_MAX_AGE_MS = 5000;

interface Waiter {
  call: EngineCall;
  grant(): void;
  refuse(error: Error): void;
}

type ProbeResult = { ok: true; detail: string } | { ok: false; detail: string; hung: boolean };

const gates = new WeakMap<object, EngineGate>();

/** Gates every call `docker` makes from now on; a client already gated keeps its gate. */
export function gateEngine(docker: Docker, settings: EngineGateSettings): EngineGate {
  const modem = docker.modem as unknown as Modem;
  const existing = gates.get(modem);
  if (existing) return existing;
  const gate = new EngineGate(modem.dial.bind(modem), settings);
  modem.dial = (options, callback) => gate.dial(options, callback);
  gates.set(modem, gate);
  return gate;
}

export class EngineGate {
  private inFlight = 0;
  private changes = 0;
  private readonly waiting: Waiter[] = [];
  /** Since when the engine is marked not answering, and what missed its deadline first. */
  private stuck: { since: number; what: string } | null = null;
  /** Containers the engine answered for, newest last: what the probe inspects. */
  private readonly containers = new Set<string>();
  /** Containers to remove once the engine answers again (names of creates without an answer, IDs of failed removals). */
  private readonly cleanUps = new Set<string>();
  private probing: { started: number; result: Promise<ProbeResult> } | null = null;
  /** The last probe that found the engine answering, and when its answer came; cleared by any sign of trouble. */
  private lastAnswer: { at: number; detail: string } | null = null;
  private recheck: NodeJS.Timeout | null = null;

  constructor(
    private readonly rawDial: (options: DialOptions, callback: DialCallback) => void,
    private readonly settings: EngineGateSettings,
  ) {}

  /** Calls in flight right now (the probe's excluded). */
  get callsInFlight(): number {
    return this.inFlight;
  }

  /** Since when the engine is marked not answering (ms since the epoch); null while it answers. */
  get notAnsweringSince(): number | null {
    return this.stuck?.since ?? null;
  }

  dial(options: DialOptions, callback: DialCallback): void {
    const call = engineCall(options.method, options.path);
    if (this.stuck) {
      const refusal = this.refusal(call);
      if (call.kind === "change" && options.method.toUpperCase() === "DELETE" && call.container)
        this.remember(this.cleanUps, call.container);
      setImmediate(() => callback(refusal));
      return;
    }
    this.acquire(call).then(
      (release) => this.send(options, call, release, callback),
      (error: unknown) => callback(error),
    );
  }

  /**
   * The engine's state for /health. While the engine is marked not answering: that, at once. Else the
   * last probe's answer while it is recent (probing again in the background once it is older than the
   * refresh age), unless a probe has gone unanswered for `waitMs`; else a probe's answer, or, when it
   * has not answered within `waitMs`, "not answering" since it started (the probe goes on to its own
   * deadline, which marks the engine).
   */
  async health(waitMs: number): Promise<RuntimeHealth> {
    if (this.stuck) {
      this.probe();
      return this.notAnswering(this.stuck.since);
    }
    const now = Date.now();
    const last = this.lastAnswer;
    if (last && now - last.at < (this.settings.healthMaxAgeMs ?? HEALTH_MAX_AGE_MS)) {
      const probing = this.probing ?? (now - last.at >= (this.settings.healthRefreshMs ?? HEALTH_REFRESH_MS) ? this.probe() : null);
      if (!probing || now - probing.started < waitMs) return this.answeringHealth(last, now);
      return this.notAnswering(probing.started);
    }
    const probe = this.probe();
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([probe.result, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)))]);
    clearTimeout(timer);
    if (result?.ok) return { ok: true, state: "answering", detail: result.detail, checked_ms_ago: 0 };
    // (The engine may have been marked meanwhile, by the probe or another call.)
    const since = this.notAnsweringSince;
    if (result && !result.ok && !result.hung && since === null)
      return { ok: false, state: "unreachable", detail: result.detail, checked_ms_ago: 0 };
    return this.notAnswering(Math.min(since ?? probe.started, probe.started));
  }

  private answeringHealth(last: { at: number; detail: string }, now: number): RuntimeHealth {
    return { ok: true, state: "answering", detail: last.detail, checked_ms_ago: Math.max(0, now - last.at) };
  }

  private notAnswering(since: number): RuntimeHealth {
    const what = this.stuck?.what ?? `a container look-up has had no answer for ${((Date.now() - since) / 1000).toFixed(1)} s`;
    return {
      ok: false,
      state: "not answering",
      since: new Date(since).toISOString(),
      detail: `the Docker engine has not answered since ${new Date(since).toISOString()} (${what}); new work fails at once with 503 UNAVAILABLE until it answers again`,
    };
  }

  /** Asks the engine its version, then inspects a container it answered for before; one probe at a time. */
  private probe(): { started: number; result: Promise<ProbeResult> } {
    if (this.probing) return this.probing;
    const started = Date.now();
    const probing = { started, result: this.runProbe(started) };
    this.probing = probing;
    void probing.result.finally(() => {
      if (this.probing === probing) this.probing = null;
      if (this.stuck) this.scheduleRecheck();
    });
    return probing;
  }

  private async runProbe(started: number): Promise<ProbeResult> {
    const deadlineMs = this.settings.timeoutMs;
    try {
      const version = (await this.rawCall("GET", "/version", deadlineMs)) as { Version?: string; ApiVersion?: string };
      const target = [...this.containers].pop();
      if (target !== undefined) {
        try {
          await this.rawCall("GET", `/containers/${encodeURIComponent(target)}/json`, deadlineMs);
        } catch (error) {
          if ((error as { statusCode?: number }).statusCode !== 404) throw error;
          this.containers.delete(target);
        }
      }
      this.answering();
      const detail = `Docker engine ${version.Version} (API ${version.ApiVersion})`;
      this.lastAnswer = { at: Date.now(), detail };
      return { ok: true, detail };
    } catch (error) {
      this.lastAnswer = null;
      if (error instanceof DeadlineMissed) {
        this.markStuck(started, `${error.doing} got no answer within ${seconds(deadlineMs)} s`);
        return { ok: false, hung: true, detail: error.message };
      }
      return { ok: false, hung: false, detail: `Docker engine unreachable: ${(error as Error).message}` };
    }
  }

  /** One call for the probe, outside the bounds (it must get through while they are full), with its own deadline. */
  private rawCall(method: string, path: string, deadlineMs: number): Promise<unknown> {
    const doing = path === "/version" ? "asking its version" : "looking up a container";
    return new Promise((resolve, reject) => {
      const controller = new AbortController();
      const timer = setTimeout(() => {
        reject(new DeadlineMissed(deadlineMs, doing));
        controller.abort();
      }, deadlineMs);
      this.rawDial(
        { path, method, abortSignal: controller.signal, statusCodes: { 200: true, 404: "no such container", 500: "server error" } },
        (error, result) => {
          clearTimeout(timer);
          if (error) reject(error);
          else resolve(result);
        },
      );
    });
  }

  private scheduleRecheck(): void {
    if (this.recheck) return;
    this.recheck = setTimeout(() => {
      this.recheck = null;
      this.probe();
    }, RECHECK_MS);
    this.recheck.unref();
  }

  private markStuck(since: number, what: string): void {
    this.lastAnswer = null;
    if (this.stuck) return;
    this.stuck = { since, what };
    process.stderr.write(
      `the Docker engine is not answering since ${new Date(since).toISOString()} (${what}); new work fails with 503 UNAVAILABLE until it answers again\n`,
    );
    for (const waiter of this.waiting.splice(0)) waiter.refuse(this.refusal(waiter.call));
    this.scheduleRecheck();
  }

  private answering(): void {
    if (!this.stuck) return;
    process.stderr.write(`the Docker engine answers again (it did not from ${new Date(this.stuck.since).toISOString()})\n`);
    this.stuck = null;
    const cleanUps = [...this.cleanUps];
    this.cleanUps.clear();
    for (const container of cleanUps) {
      // Through the bounds like any removal; a 404 (never made, or already removed) is the usual answer.
      this.dial(
        {
          path: `/containers/${encodeURIComponent(container)}?`,
          method: "DELETE",
          options: { force: true, v: true },
          statusCodes: { 204: true, 404: "no such container", 409: "conflict", 500: "server error" },
        },
        () => undefined,
      );
    }
  }

  private refusal(call: EngineCall): RuntimeUnreachableError {
    const stuck = this.stuck!;
    return new RuntimeUnreachableError(
      `the Docker engine has not answered since ${new Date(stuck.since).toISOString()} (${stuck.what}); ` +
        `the emulator does not ask it for ${call.doing} until it answers again`,
    );
  }

  /** A place for `call`: at once when there is room, else when one frees, for at most the call's deadline. */
  private acquire(call: EngineCall): Promise<() => void> {
    if (this.hasRoom(call)) return Promise.resolve(this.take(call));
    const waitMs = this.deadlineOf(call);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        call,
        grant: () => {
          clearTimeout(timer);
          resolve(this.take(call));
        },
        refuse: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        const bound =
          call.kind === "change"
            ? `${this.changes} creates, starts or removals in flight (EMULATOR_ENGINE_MAX_CONTAINER_CHANGES ${this.settings.maxChanges})`
            : `${this.inFlight} calls in flight (EMULATOR_ENGINE_MAX_CALLS ${this.settings.maxCalls})`;
        reject(
          new RuntimeUnreachableError(
            `the Docker engine has ${bound} and none ended within ${seconds(waitMs)} s while waiting for ${call.doing}`,
          ),
        );
      }, waitMs);
      this.waiting.push(waiter);
    });
  }

  private hasRoom(call: EngineCall): boolean {
    return this.inFlight < this.settings.maxCalls && (call.kind !== "change" || this.changes < this.settings.maxChanges);
  }

  private take(call: EngineCall): () => void {
    this.inFlight += 1;
    if (call.kind === "change") this.changes += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      if (call.kind === "change") this.changes -= 1;
      for (let index = 0; index < this.waiting.length; ) {
        const waiter = this.waiting[index]!;
        if (this.hasRoom(waiter.call)) {
          this.waiting.splice(index, 1);
          waiter.grant();
        } else index += 1;
      }
    };
  }

  private deadlineOf(call: EngineCall): number {
    return deadlineOf(call.kind, this.settings.timeoutMs);
  }

  /** The call, aborted at its deadline; its place is held until the engine's answer (or a stream's body) ends. */
  private send(options: DialOptions, call: EngineCall, release: () => void, callback: DialCallback): void {
    const started = Date.now();
    const deadlineMs = this.deadlineOf(call);
    const controller = new AbortController();
    const callerSignal = options.abortSignal;
    const forwardAbort = () => controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) forwardAbort();
    else callerSignal?.addEventListener("abort", forwardAbort, { once: true });
    options.abortSignal = controller.signal;
    let answered = false;
    const answer = (error: unknown, result?: unknown) => {
      if (answered) return;
      answered = true;
      callback(error, result);
    };
    const timer = setTimeout(() => {
      if (call.kind === "lookup" || call.kind === "change") {
        this.markStuck(started, `${call.doing} got no answer within ${seconds(deadlineMs)} s`);
      }
      const name = call.doing === "creating a container" ? options.options?.name : undefined;
      if (typeof name === "string") this.remember(this.cleanUps, name);
      answer(new DeadlineMissed(deadlineMs, call.doing));
      controller.abort();
    }, deadlineMs);
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      callerSignal?.removeEventListener("abort", forwardAbort);
      release();
    };
    this.rawDial(options, (error, result) => {
      // A call that reached no engine (refused, cut) makes /health ask again rather than repeat an older answer.
      if (error && (error as { statusCode?: number }).statusCode === undefined && !controller.signal.aborted) this.lastAnswer = null;
      // A container looked up, made or changed is what the probe asks (the calls the deadlock held): the
      // engine's answer to it is as recent an answer as a probe's, so a busy emulator's /health never waits.
      if (!error && this.lastAnswer && (call.container || call.doing === "creating a container")) this.lastAnswer.at = Date.now();
      this.learn(options, call, error, result);
      const body = result as NodeJS.ReadableStream | undefined;
      if (!error && options.isStream && !options.hijack && !options.openStdin && typeof body?.once === "function") {
        // The deadline covers reading the body: an abort ends it with an error.
        body.once("end", finish);
        body.once("close", finish);
        body.once("error", finish);
      } else finish();
      answer(error, result);
    });
  }

  /** Keeps track of which containers exist, for the probe, and of removals to try again later. */
  private learn(options: DialOptions, call: EngineCall, error: unknown, result: unknown): void {
    const method = options.method.toUpperCase();
    const status = (error as { statusCode?: number } | null)?.statusCode;
    if (call.doing === "creating a container" && !error) {
      const id = (result as { Id?: string } | null)?.Id;
      if (id) this.remember(this.containers, id);
      return;
    }
    if (!call.container) return;
    if (status === 404 || (method === "DELETE" && !error)) this.containers.delete(call.container);
    else if (method === "DELETE" && error && status === undefined) this.remember(this.cleanUps, call.container);
    else if (call.doing === "looking up a container" && !error && !this.containers.has(call.container))
      this.remember(this.containers, call.container);
  }

  private remember(set: Set<string>, value: string): void {
    set.delete(value);
    set.add(value);
    if (set.size > MAX_REMEMBERED) set.delete(set.values().next().value as string);
  }
}

/** A duration in seconds as messages show it: 3, 0.3. */
const seconds = (ms: number): number => Number((ms / 1000).toFixed(1));

/** A call past its deadline: the engine did not answer. */
class DeadlineMissed extends RuntimeUnreachableError {
  constructor(
    deadlineMs: number,
    readonly doing: string,
  ) {
    super(`the Docker engine did not answer within ${seconds(deadlineMs)} s while ${doing}`);
  }
}
