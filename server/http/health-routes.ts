import { Router } from "express";
import type { RuntimeHealth } from "../sandbox/runtime.js";
import type { PoolState } from "../sandbox/sandbox-pool.js";

export interface HealthSources {
  runtime: () => Promise<RuntimeHealth>;
  store: () => RuntimeHealth;
  /** The warm pool's state, when there is one: never part of the status (an empty pool means cold creates). */
  pool?: () => PoolState;
  /** How many fault rules are in force over all keys (docs/faults.md#health). */
  activeFaultRules?: () => number;
  /** With EMULATOR_CONTRACT_CHECK=true: the answers that violated the OpenAPI document (contract-check.ts). */
  contract?: () => { violations: number; unchecked_large: number };
}

/** 200 when the Docker engine and the store answer, 503 (with what is wrong) when not. */
export function healthRouter(sources: HealthSources): Router {
  const router = Router();
  router.get("/health", async (_req, res) => {
    const [docker, store] = [await sources.runtime(), sources.store()];
    const ok = docker.ok && store.ok;
    // [choice] Present only while rules are in force: an emulator that injects nothing looks as it always did.
    const activeRules = sources.activeFaultRules?.() ?? 0;
    res.status(ok ? 200 : 503).json({
      status: ok ? "ok" : "unavailable",
      docker,
      store,
      ...(sources.pool ? { pool: sources.pool() } : {}),
      ...(activeRules > 0 ? { faults: { active_rules: activeRules } } : {}),
      ...(sources.contract ? { contract: sources.contract() } : {}),
    });
  });
  return router;
}
