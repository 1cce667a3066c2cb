// The executor's channel over TCP (CHANNEL_PORT_FLAG; channel_network.go, network_isolation.go), for
// sandboxes on another machine than the emulator's (docs/scale-out.md): containers of the sandbox image on
// a network this test makes, each keep-alive serving the channel on a port, authenticated with a secret
// only root can read, as a Swarm secret is mounted. What it must show: the emulator's ExecutorClient works
// over it; sandbox and hooks code reach no other container on the network (not another sandbox's channel,
// not a server of its user), while root's listener (the channel) is reached from outside; a connection
// without the secret gets nothing; and a keep-alive that cannot take the network from its users serves no
// channel at all.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import Docker from "dockerode";
import { CHANNEL_NETWORK_SECRET_PATH, CHANNEL_PORT_FLAG, HOLD_PORT_FLAG } from "../../sandbox-image/executor/protocol.js";
import { loadConfig } from "../../server/common/config.js";
import { ExecutorClient } from "../../server/sandbox/executor-client.js";
import { EXECUTOR_PATH, ensureSandboxImage } from "../../server/sandbox/docker/image.js";
import { NETWORK_KEEPALIVE_IDLE_MS, openNetworkChannel } from "../../server/sandbox/docker/socket-channel.js";
import { HOOKS_GID, HOOKS_UID, SANDBOX_GID, SANDBOX_UID } from "../../server/sandbox/docker/tar.js";
import { unlessGvisor } from "../support/docker-fixture.js";

const PORT = 7070;
/** A subnet of 198.18.0.0/15, kept for networks tests make inside this machine. */
const SUBNET = "198.18.240.0/24";
const ARGV = [
  "--identity",
  `sandbox=${SANDBOX_UID}:${SANDBOX_GID}:/home/sandbox`,
  "--identity",
  `hooks=${HOOKS_UID}:${HOOKS_GID}:/home/hooks`,
];
const LABEL = "dev.interactions-emulator.test";
/** Connects from a sandbox user's process to host:port; prints "connected" or the error's name. */
const connectScript = (host: string, port: number) =>
  `import socket,errno\ns=socket.socket()\ns.settimeout(3)\ntry:\n  s.connect((${JSON.stringify(host)},${port})); print("connected")\nexcept OSError as e:\n  print(errno.errorcode.get(e.errno, type(e).__name__))`;

describe("the channel over TCP; the network taken from the sandbox users", unlessGvisor("the gVisor keep-alive is sleep"), () => {
  const docker = new Docker();
  const run = randomBytes(4).toString("hex");
  const secret = randomBytes(32).toString("hex");
  let folder: string;
  let network: Docker.Network;
  const containers: Docker.Container[] = [];
  const clients: ExecutorClient[] = [];
  const addresses: string[] = [];

  async function sandboxContainer(capabilities: string[]): Promise<string> {
    const config = loadConfig(process.env);
    const image = await ensureSandboxImage(
      docker,
      { baseImage: config.EMULATOR_BASE_IMAGE, offlineBase: config.EMULATOR_OFFLINE_BASE },
      () => undefined,
    );
    const container = await docker.createContainer({
      Image: image,
      User: "0:0",
      Cmd: [EXECUTOR_PATH, HOLD_PORT_FLAG, "127.0.0.1:3128", CHANNEL_PORT_FLAG, String(PORT)],
      Labels: { [LABEL]: run },
      HostConfig: {
        Init: true,
        NetworkMode: network.id,
        CapDrop: ["ALL"],
        CapAdd: capabilities,
        SecurityOpt: ["no-new-privileges"],
        Binds: [`${path.join(folder, "secret")}:${CHANNEL_NETWORK_SECRET_PATH}:ro`],
        LogConfig: { Type: "json-file", Config: {} },
      },
    });
    containers.push(container);
    await container.start();
    const info = await container.inspect();
    return Object.values(info.NetworkSettings.Networks)[0]!.IPAddress;
  }

  async function connect(host: string, key = secret): Promise<ExecutorClient> {
    const connected = await openNetworkChannel({ host, port: PORT }, key, ARGV, 10_000);
    const client = new ExecutorClient(connected.socket, connected.socket, { transientInput: connected });
    clients.push(client);
    return client;
  }

  async function sandboxRuns(client: ExecutorClient, command: string, runAs: "sandbox" | "hooks" = "sandbox"): Promise<string> {
    const result = await client.run({ argv: ["bash", "-c", command], timeoutMs: 20_000, maxOutputBytes: 65_536, runAs });
    assert.equal(result.exitCode, 0, result.stderr.toString());
    return result.stdout.toString().trim();
  }

  before(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), "iemu-network-channel-"));
    // As a Swarm secret is mounted: root's, readable by root alone.
    fs.writeFileSync(path.join(folder, "secret"), secret, { mode: 0o400 });
    network = await docker.createNetwork({
      Name: `iemu-test-channel-${run}`,
      Driver: "bridge",
      Labels: { [LABEL]: run },
      IPAM: { Config: [{ Subnet: SUBNET }] },
    });
    for (let index = 0; index < 2; index++) addresses.push(await sandboxContainer(["SETUID", "SETGID", "NET_ADMIN"]));
  });

  after(async () => {
    for (const client of clients) client.close();
    for (const container of containers) await container.remove({ force: true }).catch(() => undefined);
    await network?.remove().catch(() => undefined);
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it("runs tool calls as the sandbox user over the connection", async () => {
    const client = await connect(addresses[0]!);
    assert.equal((await client.ping()).uid, 0);
    assert.equal(await sandboxRuns(client, "id -u"), String(SANDBOX_UID));
  });

  it("probes an idle connection within seconds (TCP keep-alive), so a peer that vanished without a FIN is noticed", async () => {
    const client = await connect(addresses[0]!);
    await client.ping();
    // The kernel's view of this connection: `timer:(keepalive,9.8sec,0)`; the OS's default idle is two hours.
    const { stdout } = await promisify(execFile)("ss", ["-tnoH", "state", "established", "dst", `${addresses[0]!}:${PORT}`]);
    const timers = [...stdout.matchAll(/timer:\(keepalive,([^,]+),/g)].map((match) => match[1]!);
    assert.ok(timers.length > 0, `no keep-alive timer on the channel's connection: ${stdout}`);
    // Under a minute: seconds and milliseconds (iproute2 6.1 writes 9.992 s as "9.992ms"); two hours as "119min".
    for (const timer of timers) {
      assert.doesNotMatch(timer, /min/, `the first keep-alive probe is ${timer} away`);
      assert.ok(Number.parseFloat(timer) <= NETWORK_KEEPALIVE_IDLE_MS / 1000, `the first keep-alive probe is ${timer} away`);
    }
  });

  it("leaves the sandbox's and the hooks' users no route to the other sandbox, whose channel root reaches", async () => {
    const [first, second] = [await connect(addresses[0]!), await connect(addresses[1]!)];
    assert.equal((await second.ping()).uid, 0, "the second sandbox's channel is not reachable from outside");
    for (const runAs of ["sandbox", "hooks"] as const) {
      const outcome = await sandboxRuns(first, `python3 -c '${connectScript(addresses[1]!, PORT)}'`, runAs);
      assert.equal(outcome, "ENETUNREACH", `${runAs} code reached the other sandbox's channel`);
    }
  });

  it("leaves a server of the sandbox user's unreachable from outside, though it answers on its loopback", async () => {
    const client = await connect(addresses[1]!);
    await sandboxRuns(client, "nohup python3 -m http.server 8000 --bind 0.0.0.0 >/dev/null 2>&1 & sleep 0.1");
    const inside = await sandboxRuns(
      client,
      `for i in $(seq 50); do python3 -c '${connectScript("127.0.0.1", 8000)}' | grep -q connected && echo up && break; sleep 0.1; done`,
    );
    assert.equal(inside, "up", "the server never listened");
    const fromOutside = await new Promise<string>((resolve) => {
      const socket = net.connect({ host: addresses[1]!, port: 8000 });
      socket.setTimeout(2000, () => {
        socket.destroy();
        resolve("no answer");
      });
      socket.once("connect", () => {
        socket.destroy();
        resolve("connected");
      });
      socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    assert.notEqual(fromOutside, "connected", "a server of the sandbox user's answered from outside the sandbox");
  });

  it("closes a connection that does not bring the secret, unanswered", async () => {
    const client = await connect(addresses[0]!, randomBytes(32).toString("hex"));
    await assert.rejects(client.ping());
    await client.closed;
  });

  it("serves no channel from a container that cannot take the network from its users (no CAP_NET_ADMIN)", async () => {
    const address = await sandboxContainer(["SETUID", "SETGID"]);
    await assert.rejects(openNetworkChannel({ host: address, port: PORT }, secret, ARGV, 3000), /ECONNREFUSED/);
    const logs = (await containers.at(-1)!.logs({ stdout: true, stderr: true })).toString();
    assert.match(logs, /not serving the channel on port 7070: the sandbox's users could reach the network/);
  });
});
