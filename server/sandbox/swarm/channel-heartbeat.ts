// A ping on every open channel to a sandbox on another machine, every EMULATOR_SWARM_CHANNEL_PING_SECONDS
// (docs/scale-out.md#a-peer-that-vanished). A machine that vanished sends no FIN, and TCP notices a dead
// peer only with data in flight, after its retransmissions (many minutes), or, idle, through the socket's
// keep-alive (socket-channel.ts); neither happens while the manager still calls the node ready. The
// ping's deadline does: unanswered, the channel is broken and every pending call fails at once, as a
// broken channel (service_unavailable), instead of waiting for its own deadline.
//
// The deadline is what is left of EMULATOR_SWARM_NODE_DOWN_SECONDS after one interval, so that a channel
// is given up no sooner than the node watcher would have called its node down (its calls then fail as
// lost, non-retryable, naming the node) and no later than that wait after the peer went silent.
// One ping at a time; none once the channel closed.

export interface Pingable {
  ping(deadlineMs: number): Promise<unknown>;
  readonly closed: Promise<void>;
}

export function keepPinging(channel: Pingable, { intervalMs, silenceMs }: { intervalMs: number; silenceMs: number }): void {
  const deadlineMs = Math.max(intervalMs, silenceMs - intervalMs);
  let pinging = false;
  const timer = setInterval(() => {
    if (pinging) return;
    pinging = true;
    // A failed ping has broken the channel already (or found it closed): nothing more to do here.
    channel
      .ping(deadlineMs)
      .catch(() => undefined)
      .finally(() => {
        pinging = false;
      });
  }, intervalMs);
  timer.unref();
  void channel.closed.then(() => clearInterval(timer));
}
