// The egress listener: the sandbox has no network, so programs reach the egress proxy by connecting
// here (HTTP_PROXY=http://127.0.0.1:3128) and each accepted connection travels over the channel as an
// egress stream. One listener per executor; everything is torn down when the executor exits.

import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { logDiagnostic } from "./diagnostics.js";
import { EgressConnection, type ServerStreamFrame } from "./egress-connection.js";
import { EGRESS_LISTEN_RETRY_MS, EGRESS_MAX_STREAMS, type EgressFrame } from "./protocol.js";

const LISTEN_RETRY_INTERVAL_MS = 100;

export class EgressListenError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "EgressListenError";
  }
}

export class EgressListener {
  private server: Server | null = null;
  private starting = false;
  private stopped = false;
  private nextStreamId = 1;
  private readonly connections = new Map<number, EgressConnection>();

  constructor(private readonly send: (frame: EgressFrame, body?: Buffer) => void) {}

  /** Resolves with the port bound; retries while the port is in use (a previous executor still exiting). */
  async listen(host: string, port: number): Promise<number> {
    if (this.server !== null || this.starting) {
      throw new EgressListenError("EALREADY", "this executor already has an egress listener");
    }
    this.starting = true;
    try {
      const deadline = Date.now() + EGRESS_LISTEN_RETRY_MS;
      for (;;) {
        if (this.stopped) throw new EgressListenError("ECANCELED", "the executor is shutting down");
        try {
          const server = await this.bind(host, port);
          if (this.stopped) {
            server.close();
            throw new EgressListenError("ECANCELED", "the executor is shutting down");
          }
          this.server = server;
          return (server.address() as AddressInfo).port;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== "EADDRINUSE" || Date.now() >= deadline) throw error;
          await sleep(LISTEN_RETRY_INTERVAL_MS);
        }
      }
    } finally {
      this.starting = false;
    }
  }

  /** Routes a frame from the server; frames for connections that are gone (or never were) are dropped. */
  receive(frame: ServerStreamFrame, body: Buffer): void {
    this.connections.get(frame.stream)?.receive(frame, body);
  }

  /** Stops listening and resets every connection; nothing is sent (the channel is closing). */
  closeAll(): void {
    this.stopped = true;
    this.server?.close();
    for (const connection of [...this.connections.values()]) connection.reset();
  }

  private bind(host: string, port: number): Promise<Server> {
    return new Promise((resolve, reject) => {
      // allowHalfOpen: a program's shutdown(SHUT_WR) must reach the server as `end` while the reply still flows.
      const server = createServer({ allowHalfOpen: true }, (socket) => this.accept(socket));
      // Connections past the limit are closed by Node as soon as they are accepted: a flood of opens
      // cannot pile up sockets here, nor streams on the server.
      server.maxConnections = EGRESS_MAX_STREAMS;
      server.once("error", reject);
      server.listen({ host, port }, () => {
        server.off("error", reject);
        server.on("error", (error) => logDiagnostic(`egress listener: ${error.message}`));
        resolve(server);
      });
    });
  }

  private accept(socket: Socket): void {
    if (this.stopped) {
      socket.destroy();
      return;
    }
    const streamId = this.nextStreamId++;
    const connection = new EgressConnection(streamId, socket, {
      send: this.send,
      forget: (id) => this.connections.delete(id),
    });
    this.connections.set(streamId, connection);
  }
}
