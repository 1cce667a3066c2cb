// Work the benchmark does many times at once, bounded: at most `concurrency` at a time, and each call
// given a deadline, so that an engine that stalls (Docker 20.10 can, under heavy container churn) fails
// the step with a message instead of hanging the run.

/** Runs `task` over `items`, `concurrency` at a time; the results in the items' order. */
export async function inBatches<T, R>(items: T[], concurrency: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** `work`, or a rejection saying what took longer than `ms` (the work itself goes on unobserved). */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${(ms / 1000).toFixed(0)} s`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
