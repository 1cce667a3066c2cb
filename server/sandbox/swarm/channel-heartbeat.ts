// A ping on every open channel to a sandbox on another machine, every EMULATOR_SWARM_CHANNEL_PING_SECONDS
// (docs/scale-out.md#a-peer-that-vanished). A machine that vanished sends no FIN, and TCP notices a dead
// peer only with data in flight, after its retransmissions (many minutes), or, idle, through the socket's
// keep-alive (socket-channel.ts); neither happens while the manager still calls the node ready. The
// ping's own deadline (ExecutorDeadlines.graceMs) does: the executor did not answer, so the channel is
// broken and every pending call fails at once, as a broken channel (service_unavailable), instead of
// waiting for its own deadline. One ping at a time; none once the channel closed.

export interface Pingable {
  ping(): Promise<unknown>;
  readonly closed: Promise<void>;
}

export function keepPinging(channel: Pingable, intervalMs: number): void {
  let pinging = false;
  const timer = setInterval(() => {
    if (pinging) return;
    pinging = true;
    // A failed ping has broken the channel already (or found it closed): nothing more to do here.
    channel
      .ping()
      .catch(() => undefined)
      .finally(() => {
        pinging = false;
      });
  }, intervalMs);
  timer.unref();
  void channel.closed.then(() => clearInterval(timer));
}
