// A way onto a Swarm overlay network for a test process that is not on it (the emulator, deployed, runs
// on the overlay itself: docs/scale-out.md). A container of the sandbox image on the manager, attached to
// the overlay, listens on a Unix socket in a folder of this machine bind-mounted into it (the test
// cluster's engines share this machine's file system; only their networks are their own) and, for each
// connection, reads one line "host port", connects there over the overlay, answers "+" (or "-" and the
// errno's name) and then relays bytes both ways. Used as SwarmRuntimeOptions.dial.

import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type Docker from "dockerode";
import type { ChannelSocket } from "../../server/sandbox/docker/socket-channel.js";

const RELAY_SCRIPT = `
import errno, os, socket, sys, threading
path = "/relay/relay.sock"
server = socket.socket(socket.AF_UNIX)
server.bind(path)
os.chmod(path, 0o600)
server.listen(64)
def pump(source, target):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    try:
        target.shutdown(socket.SHUT_WR)
    except OSError:
        pass
def serve(client):
    line = b""
    while not line.endswith(b"\\n"):
        chunk = client.recv(1)
        if not chunk:
            client.close(); return
        line += chunk
    host, port = line.decode().split()
    upstream = socket.socket()
    upstream.settimeout(3)
    try:
        upstream.connect((host, int(port)))
    except OSError as error:
        client.sendall(b"-" + errno.errorcode.get(error.errno or 0, "ETIMEDOUT").encode() + b"\\n"); client.close(); return
    upstream.settimeout(None)
    client.sendall(b"+")
    threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
    pump(upstream, client)
while True:
    connection, _ = server.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
`;

export interface OverlayRelay {
  dial(address: { host: string; port: number }): Promise<ChannelSocket>;
  remove(): Promise<void>;
}

/** Starts the relay container on `docker`'s engine, attached to `network`; waits for its socket. */
export async function startOverlayRelay(
  docker: Docker,
  image: string,
  network: string,
  labels: Record<string, string>,
): Promise<OverlayRelay> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "iemu-overlay-relay-"));
  const socketPath = path.join(folder, "relay.sock");
  const container = await docker.createContainer({
    Image: image,
    User: "0:0",
    Cmd: ["python3", "-u", "-c", RELAY_SCRIPT],
    Labels: labels,
    HostConfig: { NetworkMode: network, Binds: [`${folder}:/relay`], Init: true },
  });
  const remove = async () => {
    await container.remove({ force: true }).catch(() => undefined);
    fs.rmSync(folder, { recursive: true, force: true });
  };
  try {
    await container.start();
    const deadline = Date.now() + 20_000;
    while (!fs.existsSync(socketPath)) {
      if (Date.now() > deadline)
        throw new Error(
          `the overlay relay did not listen within 20 s: ${(await container.logs({ stdout: true, stderr: true })).toString()}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    await remove();
    throw error;
  }
  return { dial: (address) => dialThrough(socketPath, address), remove };
}

function dialThrough(socketPath: string, address: { host: string; port: number }): Promise<ChannelSocket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ path: socketPath });
    socket.once("error", reject);
    socket.once("close", () => reject(new Error(`the overlay relay closed the connection to ${address.host}:${address.port} unanswered`)));
    socket.once("connect", () => socket.write(`${address.host} ${address.port}\n`));
    let answer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      if (answer[0] === 0x2b /* + */) {
        socket.off("data", onData);
        socket.pause();
        socket.off("error", reject);
        const early = answer.subarray(1);
        resolve({
          socket,
          setReceiver(receive) {
            if (early.length > 0) receive(early);
            socket.on("data", receive);
            socket.resume();
          },
        });
      } else if (answer.includes(0x0a)) {
        socket.destroy();
        const code = answer.subarray(1).toString().trim();
        reject(Object.assign(new Error(`connect ${code} ${address.host}:${address.port} (through the overlay relay)`), { code }));
      }
    };
    socket.on("data", onData);
  });
}
