// Continuing an interaction that stopped at requires_continuation (docs/api.md#continuation): the
// service stops a long decode at its per-request limit and hands out a continuation_token; a create
// with that token (and, when stored, the interaction that issued it as previous_interaction_id and no
// input) is a new interaction whose output is the rest of the answer. The emulator stops there only
// when a fault rule says so (docs/faults.md#interactions): the answer is split in two, and the token
// carries the second half, so it also continues an interaction created with store: false.

import type { Planner, PlannerState } from "../agent/planner.js";
import type { CreateInteractionRequest } from "../api/create-interaction.js";
import type { ReadInput } from "../api/interaction-input.js";
import { InvalidArgumentError } from "../common/errors.js";
import type { InteractionRecord } from "./interaction-store.js";

const PREFIX = "ct_";

interface TokenBody {
  /** The interaction that issued the token. */
  i: string;
  /** The rest of its answer. */
  r: string;
}

/** The token an interaction that stopped with `rest` still to write hands out. [choice] Opaque to clients, not a secret. */
export function continuationToken(interactionId: string, rest: string): string {
  const body: TokenBody = { i: interactionId, r: rest };
  return PREFIX + Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
}

/** The answer split where a decode limit would cut it: about half of its characters in each part. */
export function splitAnswer(text: string): { head: string; rest: string } {
  const chars = [...text];
  const cut = Math.ceil(chars.length / 2);
  return { head: chars.slice(0, cut).join(""), rest: chars.slice(cut).join("") };
}

const NOT_OURS =
  "continuation_token is not a token this emulator handed out; pass the continuation_token of an interaction that stopped at requires_continuation, unchanged.";

function readToken(token: string): TokenBody {
  if (!token.startsWith(PREFIX)) throw new InvalidArgumentError(NOT_OURS);
  try {
    const body = JSON.parse(Buffer.from(token.slice(PREFIX.length), "base64url").toString("utf8")) as Partial<TokenBody>;
    if (typeof body.i === "string" && typeof body.r === "string") return { i: body.i, r: body.r };
  } catch {
    // Falls through to the refusal below.
  }
  throw new InvalidArgumentError(NOT_OURS);
}

/**
 * The rest of the answer the request's continuation_token continues; a 400 when the token is not one
 * of ours, or does not belong to the previous interaction named, or that one is not (or no longer)
 * waiting to be continued. Without previous_interaction_id (store: false) the token alone says it.
 */
export function continuedAnswer(request: CreateInteractionRequest, previous: InteractionRecord | null): string {
  const token = request.continuation_token ?? "";
  const body = readToken(token);
  if (previous === null) return body.r;
  if (body.i !== previous.id) {
    throw new InvalidArgumentError(
      `continuation_token was handed out by interaction ${body.i}, not by ${previous.id} (previous_interaction_id); pass the interaction that issued the token as previous_interaction_id.`,
    );
  }
  if (previous.status !== "requires_continuation" || previous.echo.continuation_token !== token) {
    throw new InvalidArgumentError(
      `interaction ${previous.id} is ${previous.status} and waits for no continuation with this token; only an interaction in requires_continuation is continued, with its latest continuation_token.`,
    );
  }
  return body.r;
}

/** A continuation records no input: the interaction it continues has it. */
export const NO_INPUT: ReadInput = { shape: { form: "none", steps: 0 }, steps: [], text: "", unread: [] };

/** Writes the rest of the answer and keeps the conversation's planner state, so a later interaction resumes it. */
export function continuationPlanner(rest: string, previousState: PlannerState | undefined): Planner {
  return {
    name: previousState?.planner ?? "continuation",
    needsSandbox: false,
    next: async () => ({ kind: "answer", text: rest }),
    saveState: () => previousState ?? { planner: "continuation", data: null },
  };
}
