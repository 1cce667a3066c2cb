// The channel sockets' shared read buffer (socket-channel.ts): every channel socket reads into one
// buffer and its receiver copies what it keeps. Two channels fed large, interleaved bursts by a local
// Unix socket server standing in for the keep-alive must each get their own bytes, whole and in order,
// and bytes sent before a receiver is set must wait for it.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CHANNEL_SECRET_FILE, CHANNEL_SOCKET_FILE } from "../../sandbox-image/executor/protocol.js";
import { ChannelFolders } from "../../server/sandbox/docker/socket-channel.js";

describe("channel sockets reading into one shared buffer", () => {
  let root: string;
  let server: net.Server;
  /** What the fake keep-alive sends each connection once its preamble (4-byte length + JSON) is in. */
  const payloads: Buffer[] = [];
  const connections: net.Socket[] = [];

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "channel-reads-"));
    const folders = new ChannelFolders(path.join(root, "channels", "instance"));
    const folder = folders.create("env_reads");
    assert.ok(fs.existsSync(path.join(folder, CHANNEL_SECRET_FILE)));
    server = net.createServer((connection) => {
      connections.push(connection);
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        if (head.length < 4 || head.length < 4 + head.readUInt32BE(0)) return;
        connection.off("data", onData);
        const payload = payloads.shift()!;
        // In bursts of odd sizes, each written when the last was taken, so the two connections interleave.
        let offset = 0;
        const next = () => {
          if (offset >= payload.length) return connection.end();
          const size = 1 + ((offset * 7919) % 300_000);
          const part = payload.subarray(offset, offset + size);
          offset += part.length;
          if (connection.write(part)) setImmediate(next);
          else connection.once("drain", next);
        };
        next();
      };
      connection.on("data", onData);
    });
    await new Promise<void>((resolve) => server.listen(path.join(folder, CHANNEL_SOCKET_FILE), resolve));
  });
  after(async () => {
    for (const connection of connections) connection.destroy();
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("hands each socket's receiver its own bytes, whole and in order, also those sent before it was set", async () => {
    const folders = new ChannelFolders(path.join(root, "channels", "instance"));
    const secret = folders.secretOf("env_reads")!;
    const sent = [randomBytes(3 * 1024 * 1024 + 17), randomBytes(2 * 1024 * 1024 + 5)];
    payloads.push(...sent);
    const received = await Promise.all(
      sent.map(async (_, index) => {
        const { socket, setReceiver } = await folders.open("env_reads", secret, ["--identity", "sandbox=1000:1000:/home/sandbox"], 5000);
        const closed = new Promise((resolve) => socket.once("close", resolve));
        // The first bytes (or all of them) arrive before the receiver is set: they must be kept for it.
        if (index === 0) await new Promise((resolve) => setTimeout(resolve, 50));
        const chunks: Buffer[] = [];
        setReceiver((chunk) => chunks.push(Buffer.from(chunk)));
        await closed;
        return Buffer.concat(chunks);
      }),
    );
    received.forEach((bytes, index) => {
      assert.equal(bytes.length, sent[index]!.length, `socket ${index}: length`);
      assert.ok(bytes.equals(sent[index]!), `socket ${index}: content`);
    });
  });
});
