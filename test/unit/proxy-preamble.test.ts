import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { checkPreamble, encodePreamble, readPreambleLine, secretsMatch } from "../../proxy/preamble.js";

const SECRET = "s3cret-s3cret-s3cret";

describe("preamble validation", () => {
  const good = {
    secret: SECRET,
    environment_id: "env_abc",
    policy: { mode: "allowlist", entries: [{ domain: "*.example", headers: { Authorization: "x" } }] },
  };

  it("accepts a valid preamble and returns the policy", () => {
    const check = checkPreamble(JSON.stringify(good), SECRET);
    assert.ok(check.ok);
    assert.equal(check.preamble.environment_id, "env_abc");
    assert.deepEqual(check.preamble.policy, good.policy);
  });

  it("round-trips what encodePreamble writes", () => {
    const line = encodePreamble({ secret: SECRET, environment_id: "env_x", policy: { mode: "open" } });
    assert.ok(line.endsWith("\n"));
    assert.equal(line.indexOf("\n"), line.length - 1);
    assert.ok(checkPreamble(line.trimEnd(), SECRET).ok);
  });

  const table: Array<{ name: string; line: string; reason: string }> = [
    { name: "not JSON", line: "GET http://example.com/ HTTP/1.1", reason: "not-json" },
    { name: "JSON that is not an object", line: "42", reason: "wrong-secret" },
    { name: "no secret", line: JSON.stringify({ ...good, secret: undefined }), reason: "wrong-secret" },
    { name: "a wrong secret", line: JSON.stringify({ ...good, secret: "guess" }), reason: "wrong-secret" },
    {
      name: "a secret with a wrong last character",
      line: JSON.stringify({ ...good, secret: `${SECRET.slice(0, -1)}X` }),
      reason: "wrong-secret",
    },
    { name: "a secret that is not a string", line: JSON.stringify({ ...good, secret: 1 }), reason: "wrong-secret" },
    { name: "no environment id", line: JSON.stringify({ ...good, environment_id: "" }), reason: "invalid" },
    { name: "no policy", line: JSON.stringify({ ...good, policy: undefined }), reason: "invalid" },
    {
      name: "a policy injecting Host",
      line: JSON.stringify({ ...good, policy: { mode: "allowlist", entries: [{ domain: "a", headers: { Host: "b" } }] } }),
      reason: "invalid",
    },
  ];
  for (const { name, line, reason } of table) {
    it(`refuses ${name} (${reason})`, () => {
      const check = checkPreamble(line, SECRET);
      assert.equal(check.ok, false);
      assert.equal(!check.ok && check.reason, reason);
      assert.doesNotMatch(JSON.stringify(check), new RegExp(SECRET));
    });
  }

  it("compares secrets of any length", () => {
    assert.equal(secretsMatch(SECRET, SECRET), true);
    assert.equal(secretsMatch("", SECRET), false);
    assert.equal(secretsMatch(`${SECRET}x`, SECRET), false);
  });
});

describe("reading the preamble line", () => {
  let server: net.Server;
  let port = 0;
  const accepted: Array<(socket: net.Socket) => void> = [];

  before(async () => {
    server = net.createServer((socket) => accepted.shift()?.(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function readFrom(write: (client: net.Socket) => void, limits = { maxBytes: 64, timeoutMs: 500 }) {
    const serverSide = new Promise<net.Socket>((resolve) => accepted.push(resolve));
    const client = net.connect({ host: "127.0.0.1", port });
    const socket = await serverSide;
    write(client);
    try {
      return await readPreambleLine(socket, limits);
    } finally {
      client.destroy();
      socket.destroy();
    }
  }

  it("returns the line and keeps the bytes that followed it", async () => {
    const result = await readFrom((client) => client.write('{"a":1}\nGET http://x/ HTTP/1.1\r\n'));
    assert.equal(result.line, '{"a":1}');
    assert.equal(result.rest.toString(), "GET http://x/ HTTP/1.1\r\n");
  });

  it("assembles a line written in pieces", async () => {
    const result = await readFrom((client) => {
      client.write('{"a"');
      setTimeout(() => client.write(":2}\n"), 20);
    });
    assert.equal(result.line, '{"a":2}');
    assert.equal(result.rest.length, 0);
  });

  it("refuses a line longer than the limit", async () => {
    await assert.rejects(
      readFrom((client) => client.write(`${"x".repeat(100)}\n`)),
      /too long/,
    );
    await assert.rejects(
      readFrom((client) => client.write("x".repeat(100))),
      /too long/,
    );
  });

  it("refuses a connection that closes before the newline", async () => {
    await assert.rejects(
      readFrom((client) => client.end('{"a":1}')),
      /closed before the preamble/,
    );
  });

  it("gives up when no preamble comes in time", async () => {
    await assert.rejects(
      readFrom(() => undefined, { maxBytes: 64, timeoutMs: 50 }),
      /in time/,
    );
  });
});
