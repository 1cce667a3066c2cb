// The egress proxy's fault question answered from the fault plan (docs/faults.md#egress). The proxy
// knows environments only by ID; the rule belongs to an API key, so the owner is looked up here. An
// ID that names no environment (an HTTP hook's own identity, a repository clone) gets no fault.

import type { EgressFaultEffect, EgressFaultLookup } from "../../proxy/index.js";
import type { FaultPlan } from "../faults/fault-plan.js";
import type { FaultEffect } from "../faults/fault-rules.js";

export function egressFaultLookup(plan: FaultPlan, ownerOfEnvironment: (environmentId: string) => string | null): EgressFaultLookup {
  return ({ environmentId, host }) => {
    // The usual case, no rule anywhere, costs no lookup of the owner.
    if (plan.activeCount() === 0) return null;
    const owner = ownerOfEnvironment(environmentId);
    if (owner === null || !plan.hasRules(owner)) return null;
    const fault = plan.take({ owner, environmentId, site: { kind: "egress", host } });
    if (fault === null) return null;
    const effect = egressEffect(fault.effect);
    return effect === null ? null : { rule_id: fault.rule_id, effect };
  };
}

/** The rule schema lets only these reach an egress site; anything else is a bug, and no fault. */
function egressEffect(effect: FaultEffect): EgressFaultEffect | null {
  switch (effect.kind) {
    case "timeout":
    case "refuse":
    case "reset":
    case "latency":
      return effect;
    case "http_status":
      return effect.latency_ms === undefined ? { kind: "http_status", status: effect.status } : effect;
    default:
      return null;
  }
}
