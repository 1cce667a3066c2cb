// One place's view of the fault plan: bound to the owner and environment of the work it runs, so a
// hook, tool or channel call asks only "is a fault injected here, now?" and never learns of other
// keys' rules. The engine and the agent get this function, not the plan (they stay pure policy).

import type { FaultPlan, InjectedFault } from "./fault-plan.js";
import type { FaultSite } from "./fault-rules.js";

export interface FaultPort {
  /** Whether the owner has any rule now: lets a hot path skip describing its site (and keep its shortcuts). */
  armed(): boolean;
  take(site: FaultSite): InjectedFault | null;
}

export function faultPortFor(plan: FaultPlan, owner: string, environmentId: string | null): FaultPort {
  return {
    armed: () => plan.hasRules(owner),
    take: (site) => plan.take({ owner, environmentId, site }),
  };
}

/**
 * The mark a failure's text ends with when a rule injected it, the same at every target (tool results,
 * the interaction's error, an MCP or model failure), so a test can tell an injected failure from a real one.
 */
export function injectedMark(fault: Pick<InjectedFault, "rule_id">): string {
  return ` (injected by fault rule ${fault.rule_id})`;
}
