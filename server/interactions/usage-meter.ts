// Keeps an interaction's usage up to date as its run emits events (the rule is in usage.ts). A step is
// counted once, when it stops (its content is whole then), so the count of a running interaction is that
// of its input and of the steps finished so far.
//
// [choice] The stream carries the usage where the SDK's event types have room for it: every
// `interaction.status_update` and every `step.stop` has `usage`, the interaction's count so far, and the
// `step.stop` of a step the run wrote also has `step_usage`, that step's own count; interaction.completed
// has the whole Interaction, `usage` included. interaction.created carries none (usage is only final at
// the end, and that snapshot is rebuilt from the finished record when a stream is replayed).

import type { Step } from "../agent/steps.js";
import type { InteractionEvent } from "./events.js";
import { addTally, countRunStep, emptyTally, usageOf, type TokenTally, type Usage } from "./usage.js";

export class UsageMeter {
  private readonly tally: TokenTally;
  /**
   * What a model reported for its turns, once it reported any: the interaction's usage is then that
   * sum alone (the model counted the input and the tool results it read), not the emulator's rule.
   */
  private reported: { tally: TokenTally; firstInput: number } | null = null;
  /** Steps at this index and after are the run's own; those before belong to the input. */
  private firstRunStep = Number.POSITIVE_INFINITY;
  private current: Usage;

  constructor(input: TokenTally) {
    // A copy: the caller's tally stays as it was.
    this.tally = addTally(emptyTally(), input);
    this.current = usageOf(this.tally);
  }

  /** The interaction's usage now. */
  get usage(): Usage {
    return this.current;
  }

  /** Tokens a model reported for one turn (docs/model-agent.md#usage). */
  report(turn: { input: number; output: number; thought: number }): void {
    this.reported ??= { tally: emptyTally(), firstInput: turn.input };
    const { tally } = this.reported;
    tally.input.text += turn.input;
    tally.output.text += turn.output;
    tally.thought += turn.thought;
    this.current = { ...usageOf(tally), initial_input_tokens: this.reported.firstInput };
  }

  /** The steps recorded from now on are written by the run (those recorded before stand for its input). */
  runStepsFrom(index: number): void {
    this.firstRunStep = index;
  }

  /**
   * The event as it is sent and stored: a step.stop or status update with the usage added. `steps` are
   * the interaction's steps before this event applies (a stopping step is already whole then).
   */
  observe(event: InteractionEvent, steps: readonly Step[]): InteractionEvent {
    if (event.event_type === "interaction.status_update") return { ...event, usage: this.current };
    if (event.event_type !== "step.stop") return event;
    const step = steps[event.index];
    // A model's counts come per turn, not per step: its steps carry the interaction's usage so far only.
    if (!step || event.index < this.firstRunStep || this.reported) return { ...event, usage: this.current };
    const own = countRunStep(step);
    addTally(this.tally, own);
    this.current = usageOf(this.tally);
    return { ...event, usage: this.current, step_usage: usageOf(own) };
  }
}
