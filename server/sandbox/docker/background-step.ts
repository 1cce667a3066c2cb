// A step of the runtime's start-up that only sandboxes need (probing what the engine can grant, reading
// the image's CA bundle): started at once, not waited for by the server's start, and awaited by the
// first thing that makes a sandbox. Each probe starts containers (seconds on a busy engine), so a warm
// `npm start` answers /health without them; no sandbox is ever made before they are done.

export class BackgroundStep {
  private running: Promise<void> | null = null;
  private done = false;

  constructor(private readonly run: () => Promise<void>) {}

  /** Starts the step; its failure is kept for `settled()`, never an unhandled rejection. */
  start(): void {
    if (this.running || this.done) return;
    const running = this.run().then(() => {
      this.done = true;
    });
    running.catch(() => undefined);
    this.running = running;
  }

  /** Resolves once the run in progress (if any) has ended, however it ended; never starts one. */
  async ended(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  /**
   * Resolves once the step has succeeded. A failed step (the engine did not answer at start) is run
   * again by the next caller, so a passing fault of the engine is not kept for the emulator's lifetime.
   */
  async settled(): Promise<void> {
    if (this.done) return;
    if (!this.running) this.start();
    const running = this.running!;
    try {
      await running;
    } catch (error) {
      if (this.running === running) this.running = null;
      throw error;
    }
  }
}
