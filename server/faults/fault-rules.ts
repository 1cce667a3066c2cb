// The shapes of a fault rule (docs/faults.md): what it targets, what it does, and how often. One
// definition, read at the edge by the faults route and relied on by CI scripts, so the names are the
// issue's and never change. A rule that cannot happen where it points (a 503 from a command hook, a
// dropped channel for an egress host) is refused here, naming why, rather than silently never firing.

import { z } from "zod";

/** A target may be narrowed to one environment; webhooks and the model belong to none. */
const environment = z.string().min(1).max(200).optional();

const hookTarget = z.strictObject({
  kind: z.literal("hook"),
  /** The handler's command line exactly as written in hooks.json. */
  command: z.string().min(1).max(4096).optional(),
  /** The handler's URL exactly as written. */
  url: z.string().min(1).max(4096).optional(),
  /** The group's name. */
  group: z.string().min(1).max(1000).optional(),
  /** The rule's matcher exactly as written. */
  matcher: z.string().min(1).max(1000).optional(),
  event: z.enum(["pre_tool_execution", "post_tool_execution"]).optional(),
  environment,
});

const egressTarget = z.strictObject({
  kind: z.literal("egress"),
  /** The host the sandbox asks for, as in the network allowlist (compared without case). */
  host: z.string().min(1).max(253),
  environment,
});

const toolTarget = z.strictObject({
  kind: z.literal("tool"),
  name: z.enum(["code_execution", "read_file", "write_file", "list_files", "delete_file"]),
  environment,
});

const sandboxChannelTarget = z.strictObject({ kind: z.literal("sandbox_channel"), environment });

const mcpTarget = z.strictObject({
  kind: z.literal("mcp"),
  /** The MCP server's name as the request declares it. */
  server: z.string().min(1).max(200),
  /** One tool of it; every tool when absent. */
  tool: z.string().min(1).max(200).optional(),
  environment,
});

const webhookTarget = z.strictObject({
  kind: z.literal("webhook"),
  /** The delivery URI exactly as registered (or as in an interaction's webhook_config). */
  uri: z.string().min(1).max(4096),
});

const modelTarget = z.strictObject({
  kind: z.literal("model"),
  /** The model as EMULATOR_AGENT_MODEL names it (e.g. "openai:gpt-4o-mini"); any when absent. */
  model: z.string().min(1).max(200).optional(),
});

/** An interaction of the key as it starts (any; `agent` or `model`: only those naming it, as the request does). */
const interactionTarget = z.strictObject({
  kind: z.literal("interaction"),
  agent: z.string().min(1).max(200).optional(),
  model: z.string().min(1).max(200).optional(),
});

export const faultTargetSchema = z.discriminatedUnion("kind", [
  hookTarget,
  egressTarget,
  toolTarget,
  sandboxChannelTarget,
  mcpTarget,
  webhookTarget,
  modelTarget,
  interactionTarget,
]);

/** Ten minutes: longer than any deadline a fault can stand in for, short enough not to pin a request forever. */
export const MAX_FAULT_LATENCY_MS = 600_000;

const latencyMs = z.number().int().min(0).max(MAX_FAULT_LATENCY_MS);

export const faultEffectSchema = z.discriminatedUnion("kind", [
  /** The thing does not answer until its caller's deadline, which then applies as it would for real. */
  z.strictObject({ kind: z.literal("timeout") }),
  /** It fails with this message (a hook exits non-zero with it on stderr, a tool or MCP call errors with it). */
  z.strictObject({ kind: z.literal("error"), message: z.string().min(1).max(2000) }),
  /** It answers this HTTP status, after latency_ms when given. */
  z.strictObject({ kind: z.literal("http_status"), status: z.number().int().min(400).max(599), latency_ms: latencyMs.optional() }),
  /** It answers as usual, ms later. */
  z.strictObject({ kind: z.literal("latency"), ms: latencyMs }),
  /** The connection is refused. */
  z.strictObject({ kind: z.literal("refuse") }),
  /** The connection is reset. */
  z.strictObject({ kind: z.literal("reset") }),
  /** The sandbox channel is dropped in the middle of the call. */
  z.strictObject({ kind: z.literal("drop") }),
  /** The interaction ends `incomplete`: its answer cut short, as at an output limit. */
  z.strictObject({ kind: z.literal("incomplete") }),
  /** The interaction starts `queued` and waits ms (0 when absent) before it runs. */
  z.strictObject({ kind: z.literal("queued"), ms: latencyMs.optional() }),
  /** The interaction stops at `requires_continuation` with a continuation_token that continues it. */
  z.strictObject({ kind: z.literal("requires_continuation") }),
]);

export const faultRuleSchema = z
  .strictObject({
    target: faultTargetSchema,
    effect: faultEffectSchema,
    /** Fires on the next N matches, then is spent. */
    times: z.number().int().min(1).max(1_000_000).optional(),
    /** Fires on each match with this probability, drawn from a generator seeded with `seed`. */
    probability: z.number().gt(0).max(1).optional(),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .optional(),
  })
  .superRefine((rule, context) => {
    if (rule.times !== undefined && rule.probability !== undefined) {
      context.addIssue({ code: "custom", path: ["probability"], message: 'give "times" or "probability", not both' });
    }
    if (rule.seed !== undefined && rule.probability === undefined) {
      context.addIssue({ code: "custom", path: ["seed"], message: '"seed" seeds "probability"; give "probability" too, or drop "seed"' });
    }
    const misfit = effectMisfit(rule.target, rule.effect);
    if (misfit !== null) context.addIssue({ code: "custom", path: ["effect", "kind"], message: misfit });
  });

export type FaultTarget = z.infer<typeof faultTargetSchema>;
export type FaultEffect = z.infer<typeof faultEffectSchema>;
export type FaultRuleInput = z.infer<typeof faultRuleSchema>;
export type FaultTargetKind = FaultTarget["kind"];
export type FaultEffectKind = FaultEffect["kind"];

/** Which effects can happen at each kind of target, and why the others cannot. */
const EFFECTS_BY_TARGET: Readonly<Record<FaultTargetKind, readonly FaultEffectKind[]>> = {
  // A hook is a command or a request: what fits depends on which (see effectMisfit).
  hook: ["timeout", "error", "http_status", "latency", "refuse", "reset"],
  egress: ["timeout", "http_status", "latency", "refuse", "reset"],
  tool: ["timeout", "error", "latency"],
  sandbox_channel: ["drop", "latency"],
  mcp: ["timeout", "error", "http_status", "latency", "refuse"],
  webhook: ["timeout", "http_status", "latency", "refuse", "reset"],
  model: ["timeout", "error", "http_status", "latency"],
  interaction: ["incomplete", "queued", "requires_continuation"],
};

const HTTP_ONLY_EFFECTS: readonly FaultEffectKind[] = ["http_status", "refuse", "reset"];

/** Why this effect cannot happen at this target, for a person; null when it can. */
export function effectMisfit(target: FaultTarget, effect: FaultEffect): string | null {
  const fits = EFFECTS_BY_TARGET[target.kind];
  if (!fits.includes(effect.kind)) {
    return `a "${effect.kind}" effect cannot happen at a "${target.kind}" target; it takes ${fits.map((kind) => `"${kind}"`).join(", ")}`;
  }
  if (target.kind === "hook") {
    if (target.command !== undefined && target.url !== undefined) {
      return 'a hook handler has a "command" or a "url", never both; name one';
    }
    if (target.command !== undefined && HTTP_ONLY_EFFECTS.includes(effect.kind)) {
      return `a command hook makes no HTTP request, so "${effect.kind}" cannot happen to it; use "timeout", "error" or "latency", or target an http hook by "url"`;
    }
    if (target.url !== undefined && effect.kind === "error") {
      return 'an http hook fails by its answer: use "http_status", "refuse", "reset", "timeout" or "latency" instead of "error"';
    }
  }
  return null;
}

/** What a fault stands in for, as the place it fires describes it; matched against a rule's target. */
export type FaultSite =
  | {
      kind: "hook";
      handler: "command" | "http";
      command: string | null;
      url: string | null;
      group: string;
      matcher: string | null;
      event: "pre_tool_execution" | "post_tool_execution";
    }
  | { kind: "egress"; host: string }
  | { kind: "tool"; name: string }
  | { kind: "sandbox_channel" }
  | { kind: "mcp"; server: string; tool: string }
  | { kind: "webhook"; uri: string }
  | { kind: "model"; model: string }
  | { kind: "interaction"; agent: string | null; model: string | null };

/** Whether a rule's target names this site (every field the target gives must agree). */
export function targetMatches(target: FaultTarget, site: FaultSite): boolean {
  switch (target.kind) {
    case "hook":
      return (
        site.kind === "hook" &&
        (target.command === undefined || target.command === site.command) &&
        (target.url === undefined || target.url === site.url) &&
        (target.group === undefined || target.group === site.group) &&
        (target.matcher === undefined || target.matcher === site.matcher) &&
        (target.event === undefined || target.event === site.event)
      );
    case "egress":
      return site.kind === "egress" && target.host.toLowerCase() === site.host.toLowerCase();
    case "tool":
      return site.kind === "tool" && target.name === site.name;
    case "sandbox_channel":
      return site.kind === "sandbox_channel";
    case "mcp":
      return site.kind === "mcp" && target.server === site.server && (target.tool === undefined || target.tool === site.tool);
    case "webhook":
      return site.kind === "webhook" && target.uri === site.uri;
    case "model":
      return site.kind === "model" && (target.model === undefined || target.model === site.model);
    case "interaction":
      return (
        site.kind === "interaction" &&
        (target.agent === undefined || target.agent === site.agent) &&
        (target.model === undefined || target.model === site.model)
      );
  }
}

/** Whether an effect can happen at a site (a rule naming a group may reach both kinds of handler). */
export function effectFitsSite(effect: FaultEffect, site: FaultSite): boolean {
  if (site.kind !== "hook") return true;
  if (site.handler === "command") return !HTTP_ONLY_EFFECTS.includes(effect.kind);
  return effect.kind !== "error";
}
