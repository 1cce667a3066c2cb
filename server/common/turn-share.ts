// The interactions' work gets a bounded share of each turn of the event loop, so that the loop reads
// its I/O (a /health, a new request, the channels' frames) between two shares however many run at once.
//
// Each tool call asks for a share before it is sent (agent-loop.ts), and each new interaction before it
// is prepared (interaction-service.ts); what a call's answer sets going up to the next ask (its result
// stored) runs outside the share. Within a turn's share a step goes on at once; past it, it waits, in
// the order asked, and the waiting go on a share at a time in later turns, each after the loop has
// polled: at most two shares (the poll phase's and one in the check phase) between two polls.
// Without it, 200 interactions at once on saturated cores made one turn of ~300 ms (their tool results
// arrive together and each step's work ran in the turn that delivered it), and /health waited for it
// (docs/benchmarks.md, throughput under concurrency).

/** One share of a turn for the interactions' work, in ms of the loop's time. */
export const TURN_SHARE_MS = 5;

const waiting: Array<() => void> = [];
/** When this turn's share began (the first ask since the last turn ended), or null. */
let shareStart: number | null = null;
let draining = false;

function turnEnded(): void {
  shareStart = null;
}

/**
 * Undefined while this turn's share of the interactions' work is not spent (go on at once), else a
 * promise that resolves in a later turn, after the loop has read its I/O, in the order asked.
 */
export function turnShare(): Promise<void> | undefined {
  const now = performance.now();
  if (shareStart === null) {
    shareStart = now;
    // Runs after this turn's poll (or the next turn's, when asked from a check phase).
    setImmediate(turnEnded);
  }
  if (waiting.length === 0 && now - shareStart < TURN_SHARE_MS) return undefined;
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (!draining) {
      draining = true;
      setImmediate(drain);
    }
  });
}

/** Lets the waiting go on, one after another, until a share is spent; the rest in the next turn. */
function drain(): void {
  const started = performance.now();
  const next = (): void => {
    const resume = waiting.shift();
    if (resume) resume();
    if (waiting.length === 0) {
      draining = false;
      return;
    }
    // Measured after the resumed step's first part has run (microtasks run in the order queued).
    if (performance.now() - started >= TURN_SHARE_MS) setImmediate(drain);
    else queueMicrotask(next);
  };
  next();
}
