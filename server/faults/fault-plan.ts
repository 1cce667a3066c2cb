// The fault rules in force, per API key, and the one question every place that can fail asks before
// doing its work: "is a fault injected here, now?" (take). Rules live in memory: they are test
// set-up, cleared with DELETE, and an emulator that restarts starts with none (docs/faults.md).
//
// Deterministic on purpose: a "times" rule fires on exactly the next N matches; a "probability"
// rule draws from its own generator seeded by the rule, so one seed gives the same sequence of
// hits on every run and on every machine.

import { randomBytes } from "node:crypto";
import { InvalidArgumentError, ResourceExhaustedError } from "../common/errors.js";
import type { FaultEffect, FaultRuleInput, FaultSite, FaultTarget } from "./fault-rules.js";
import { effectFitsSite, targetMatches } from "./fault-rules.js";

/** A rule as the API shows it. */
export interface FaultRuleView {
  id: string;
  target: FaultTarget;
  effect: FaultEffect;
  times?: number;
  probability?: number;
  seed?: number;
  /** For a "times" rule: how many of its times are left. */
  remaining?: number;
  /** How many times it has fired. */
  injected: number;
  create_time: string;
}

/** What take() hands the place that fails: the effect to apply and the mark to record with it. */
export interface InjectedFault {
  rule_id: string;
  effect: FaultEffect;
}

export interface FaultQuery {
  owner: string;
  /** The environment the site belongs to, when it belongs to one. */
  environmentId?: string | null;
  site: FaultSite;
}

/** More than any test needs; a bound so that one key cannot grow the plan without end. */
export const MAX_FAULT_RULES_PER_KEY = 100;

/**
 * What the plan may hold. Keys are free (any non-empty key is one unless EMULATOR_API_KEYS is set), so
 * the per-key bound alone let 60 invented keys add 6000 rules and 135 MB in 4 s (issue 29): the rules
 * of all keys together, and each rule's size, are bounded too.
 */
export interface FaultLimits {
  /** Rules of one key. */
  perKey: number;
  /** EMULATOR_MAX_FAULT_RULES: rules of all keys together. */
  total: number;
  /** EMULATOR_FAULT_RULE_MAX_BYTES: one rule as compact JSON. */
  ruleBytes: number;
}

export const DEFAULT_FAULT_LIMITS: Readonly<FaultLimits> = Object.freeze({ perKey: MAX_FAULT_RULES_PER_KEY, total: 1000, ruleBytes: 8192 });

interface Rule {
  view: FaultRuleView;
  owner: string;
  /** For a probability rule: the generator's state. */
  state: number;
}

export class FaultPlan {
  private readonly rulesByOwner = new Map<string, Rule[]>();
  private readonly listeners = new Set<() => void>();
  /** Rules of all keys, spent ones included (they hold memory until deleted). */
  private count = 0;

  constructor(
    private readonly limits: FaultLimits = DEFAULT_FAULT_LIMITS,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Adds a rule for this key; the caller has validated its shape (faultRuleSchema). Refuses a rule past
   * EMULATOR_FAULT_RULE_MAX_BYTES (400), and one past the key's or the emulator's count (429).
   */
  add(owner: string, input: FaultRuleInput): FaultRuleView {
    const bytes = Buffer.byteLength(JSON.stringify(input));
    if (bytes > this.limits.ruleBytes) {
      throw new InvalidArgumentError(
        `This fault rule has ${bytes} bytes as JSON, more than the ${this.limits.ruleBytes} a rule may have (EMULATOR_FAULT_RULE_MAX_BYTES); name its target with shorter fields, or shorten the error message.`,
      );
    }
    const rules = this.rulesByOwner.get(owner) ?? [];
    // [choice] 429: the bound is lifted by deleting rules, and this route is not the SDK's, so its retries do not apply.
    if (rules.length >= this.limits.perKey) {
      throw new ResourceExhaustedError(
        `This API key already has ${this.limits.perKey} fault rules, the most it may have; delete some (DELETE /emulator/faults/{id}, or DELETE /emulator/faults for all) and add this one again.`,
      );
    }
    if (this.count >= this.limits.total) {
      throw new ResourceExhaustedError(
        `This emulator already holds ${this.limits.total} fault rules over all API keys, the most it may hold (EMULATOR_MAX_FAULT_RULES); delete rules no longer needed (DELETE /emulator/faults with each key) and add this one again, or raise the setting.`,
      );
    }
    const view: FaultRuleView = {
      id: `fault_${randomBytes(8).toString("hex")}`,
      target: input.target,
      effect: input.effect,
      ...(input.times !== undefined ? { times: input.times, remaining: input.times } : {}),
      ...(input.probability !== undefined ? { probability: input.probability, seed: input.seed ?? 0 } : {}),
      injected: 0,
      create_time: this.now().toISOString(),
    };
    rules.push({ view, owner, state: (input.seed ?? 0) >>> 0 });
    this.rulesByOwner.set(owner, rules);
    this.count += 1;
    this.changed();
    return structuredClone(view);
  }

  list(owner: string): FaultRuleView[] {
    return (this.rulesByOwner.get(owner) ?? []).map((rule) => structuredClone(rule.view));
  }

  /** Removes one rule; false when this key has none by that ID. */
  remove(owner: string, id: string): boolean {
    const rules = this.rulesByOwner.get(owner) ?? [];
    const index = rules.findIndex((rule) => rule.view.id === id);
    if (index < 0) return false;
    rules.splice(index, 1);
    this.count -= 1;
    if (rules.length === 0) this.rulesByOwner.delete(owner);
    this.changed();
    return true;
  }

  /** Removes every rule of this key; how many there were. */
  clear(owner: string): number {
    const count = this.rulesByOwner.get(owner)?.length ?? 0;
    this.rulesByOwner.delete(owner);
    this.count -= count;
    if (count > 0) this.changed();
    return count;
  }

  /** Rules in force over all keys, spent ones excluded: what /health reports. */
  activeCount(): number {
    let count = 0;
    for (const rules of this.rulesByOwner.values()) count += rules.filter((rule) => !spent(rule)).length;
    return count;
  }

  /** Whether this key has any rule at all: lets a hot path skip building a site. */
  hasRules(owner: string): boolean {
    return (this.rulesByOwner.get(owner)?.length ?? 0) > 0;
  }

  /**
   * The fault to inject at this site now, or null. The first rule (in the order added) whose target
   * matches and whose effect fits fires; a "times" rule is used up by firing, a probability rule
   * draws its next number only when its target matches.
   */
  take(query: FaultQuery): InjectedFault | null {
    const rules = this.rulesByOwner.get(query.owner);
    if (rules === undefined) return null;
    for (const rule of rules) {
      if (spent(rule)) continue;
      const target = rule.view.target;
      const scoped = "environment" in target ? target.environment : undefined;
      if (scoped !== undefined && scoped !== query.environmentId) continue;
      if (!targetMatches(target, query.site) || !effectFitsSite(rule.view.effect, query.site)) continue;
      if (rule.view.probability !== undefined) {
        const draw = nextDraw(rule);
        if (draw >= rule.view.probability) continue;
      }
      if (rule.view.remaining !== undefined) rule.view.remaining -= 1;
      rule.view.injected += 1;
      this.changed();
      return { rule_id: rule.view.id, effect: structuredClone(rule.view.effect) };
    }
    return null;
  }

  /** Called after any change (a rule added, removed, fired): the dashboard's view refreshes on it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function spent(rule: Rule): boolean {
  return rule.view.remaining !== undefined && rule.view.remaining <= 0;
}

/** mulberry32: a tiny, well-mixed 32-bit generator; its whole state is one number, kept on the rule. */
function nextDraw(rule: Rule): number {
  rule.state = (rule.state + 0x6d2b79f5) >>> 0;
  let t = rule.state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
