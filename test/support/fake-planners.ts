// Planners for tests of the turn loop: each move is computed by a function of the conversation, and
// every conversation the planner was shown is kept (as it was then) for assertions.

import type { Conversation } from "../../server/agent/conversation.js";
import type { Move, Planner, PlannerState } from "../../server/agent/planner.js";

export type NextMove = (conversation: Readonly<Conversation>, turn: number, signal: AbortSignal | undefined) => Move | Promise<Move>;

export class FakePlanner implements Planner {
  readonly name = "fake";
  readonly needsSandbox = true;
  /** A copy of the conversation at each turn, in order. */
  readonly shown: Conversation[] = [];

  constructor(private readonly nextMove: NextMove) {}

  async next(conversation: Readonly<Conversation>, signal?: AbortSignal): Promise<Move> {
    this.shown.push(structuredClone(conversation) as Conversation);
    return this.nextMove(conversation, this.shown.length, signal);
  }

  saveState(conversation: Readonly<Conversation>): PlannerState {
    return { planner: this.name, data: { turns: conversation.turns.length } };
  }
}

/** A planner that plays the given moves in order, one per turn (and answers "done" once they run out). */
export function movesInOrder(...moves: Move[]): FakePlanner {
  return new FakePlanner((_conversation, turn) => moves[turn - 1] ?? { kind: "answer", text: "done" });
}
