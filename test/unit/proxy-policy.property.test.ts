// Properties of the egress proxy's other inputs: the allowlist policy and its decisions, the operator's
// host map (EMULATOR_EGRESS_HOST_MAP) and the identity preamble. None of them may throw anything but
// its own typed error on any input; decisions follow the documented matching rules (checked against
// a plain statement of them), and what the server encodes the proxy reads back unchanged.

import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type net from "node:net";
import { describe, it } from "node:test";
import fc from "fast-check";
import { canonicalAddress, formatIPv4, formatIPv6 } from "../../proxy/address-guard.js";
import { HostMapError, parseHostMap, parseHostPort } from "../../proxy/host-map.js";
import { CompiledPolicy, egressPolicySchema, isInjectableHeaderName, type AllowlistEntry, type EgressPolicy } from "../../proxy/policy.js";
import { checkPreamble, encodePreamble, PreambleError, readPreambleLine, type EgressPreamble } from "../../proxy/preamble.js";
import { runs } from "../support/property-runs.js";

const anyString = fc.string({ unit: "binary", maxLength: 60 });

// ---- Hosts and allowlist domains ----

const label = fc.constantFrom("api", "www", "example", "b", "v1", "xn--bcher-kva", "under_score", "a-b");
const name = fc.oneof(
  fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => `${labels.join(".")}.com`),
  fc.domain(),
  fc.constantFrom("example.com", "badexample.com", "xexample.com", "com"),
);
const address = fc.oneof(
  fc.nat({ max: 0xffffffff }).map(formatIPv4),
  fc.uint8Array({ minLength: 16, maxLength: 16 }).map(formatIPv6),
  fc.constantFrom("8.8.8.8", "2001:4860:4860::8888"),
);
/** A request host as the proxy sees it after parsing: lowercase name or canonical address. */
const host = fc.oneof(name, address);

const domain = fc.oneof(
  name,
  name.map((each) => `*.${each}`),
  fc.constant("*"),
  name.map((each) => `${each.toUpperCase()}.`),
  fc.constantFrom("0x08080808", "8.8.8.8.", "[2001:4860:4860:0:0:0:0:8888]", "api.*.com", "*example.com", "*.", " api.example.com "),
  fc.string({ minLength: 1, maxLength: 20 }),
);

const injectableName = fc.oneof(
  fc.constantFrom("Authorization", "authorization", "X-Api-Key", "x-api-key", "X-Which", "constructor", "toString"),
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/).filter(isInjectableHeaderName),
);
const headerValue = fc.oneof(fc.constantFrom("Bearer t", "", "é", "a\tb"), fc.stringMatching(/^[\x20-\x7e]{0,30}$/));
const headers = fc.array(fc.tuple(injectableName, headerValue), { maxLength: 3 }).map((pairs) => Object.fromEntries(pairs));
const entry: fc.Arbitrary<AllowlistEntry> = fc.record({ domain, headers });

// ---- The matching rules, stated plainly ----

function normalised(text: string): string {
  const lower = text.trim().toLowerCase().replace(/\.$/, "");
  return canonicalAddress(lower) ?? lower;
}

/** 3 for an exact match, 2 + suffix length for "*.suffix", 1 for "*", 0 for no match. */
function score(domainText: string, requestHost: string): number {
  const domainName = domainText.trim().toLowerCase().replace(/\.$/, "");
  if (domainName === "*") return 1;
  if (domainName.startsWith("*.")) {
    const suffix = domainName.slice(1);
    return requestHost.endsWith(suffix) && requestHost.length > suffix.length ? 2 + suffix.length : 0;
  }
  return normalised(domainName) === requestHost ? Number.MAX_SAFE_INTEGER : 0;
}

describe("egress policy: properties", () => {
  it("allows a host exactly when an entry matches it, choosing the most specific and merging its equals' headers", () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), host, (entries, requestHost) => {
        const decision = new CompiledPolicy({ mode: "allowlist", entries }).decide(requestHost);
        const scores = entries.map((each) => score(each.domain, requestHost));
        const best = Math.max(0, ...scores);
        if (best === 0) {
          assert.deepEqual(decision, { allowed: false, reason: "not-allowlisted" });
          return;
        }
        const winners = entries.filter((_, index) => scores[index] === best);
        assert.ok(decision.allowed);
        assert.equal(decision.rule, winners[0]?.domain);
        // Later entries of the same domain replace earlier values; names compare case-insensitively.
        const merged = new Map<string, [string, string]>();
        for (const winner of winners)
          for (const [headerName, value] of Object.entries(winner.headers)) merged.set(headerName.toLowerCase(), [headerName, value]);
        assert.deepEqual(decision.headers, Object.fromEntries(merged.values()));
      }),
      runs(600),
    );
  });

  it('never lets "*.suffix" match the suffix itself or a name that merely ends in its letters', () => {
    fc.assert(
      fc.property(name, fc.constantFrom("", "x", "bad", "a.", "x-"), (suffix, prefix) => {
        const policy = new CompiledPolicy({ mode: "allowlist", entries: [{ domain: `*.${suffix}`, headers: {} }] });
        assert.equal(policy.decide(suffix).allowed, false);
        if (prefix !== "" && !prefix.endsWith(".")) assert.equal(policy.decide(`${prefix}${suffix}`).allowed, false);
        assert.equal(policy.decide(`sub.${suffix}`).allowed, true);
      }),
      runs(300),
    );
  });

  it("disabled allows nothing and open allows everything without headers, whatever the host", () => {
    fc.assert(
      fc.property(fc.oneof(host, anyString), (requestHost) => {
        assert.deepEqual(new CompiledPolicy({ mode: "disabled" }).decide(requestHost), { allowed: false, reason: "egress-disabled" });
        assert.deepEqual(new CompiledPolicy({ mode: "open" }).decide(requestHost), {
          allowed: true,
          rule: "open",
          headers: {},
          oauth2: null,
          substitutions: [],
        });
      }),
      runs(300),
    );
  });

  it("never throws: any JSON is accepted or refused by the schema, and any accepted policy decides any string", () => {
    const nearPolicy = fc.oneof(
      fc.record({ mode: fc.constantFrom("open", "disabled", "allowlist", "ALLOWLIST", "") }),
      fc.record(
        {
          mode: fc.constant("allowlist"),
          entries: fc.array(
            fc.oneof(
              entry,
              fc.record({ domain: fc.jsonValue({ maxDepth: 1 }), headers: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
              fc.record({ domain: anyString, headers: fc.dictionary(anyString, anyString, { maxKeys: 3 }) }),
            ),
            { maxLength: 4 },
          ),
        },
        { requiredKeys: ["mode"] },
      ),
      fc.jsonValue({ maxDepth: 3 }),
    );
    fc.assert(
      fc.property(nearPolicy, fc.oneof(host, anyString), (candidate, requestHost) => {
        const parsed = egressPolicySchema.safeParse(candidate);
        if (!parsed.success) return;
        const decision = new CompiledPolicy(parsed.data as EgressPolicy).decide(requestHost);
        assert.equal(typeof decision.allowed, "boolean");
        if (decision.allowed)
          for (const headerName of Object.keys(decision.headers)) assert.ok(isInjectableHeaderName(headerName), headerName);
      }),
      runs(600),
    );
  });
});

// ---- The host map ----

const mapTarget = fc.oneof(
  name.map((each) => ({ text: each, host: each.toLowerCase() })),
  fc.nat({ max: 0xffffffff }).map((value) => ({ text: formatIPv4(value), host: formatIPv4(value) })),
  fc.constantFrom(
    { text: "127.1", host: "127.0.0.1" },
    { text: "0x7f000001", host: "127.0.0.1" },
    { text: "[::1]", host: "::1" },
    { text: "[0:0::FFFF:7f00:1]", host: "::ffff:7f00:1" },
    { text: "localhost", host: "localhost" },
    { text: "upstream", host: "upstream" },
  ),
);
const mapKey = fc.oneof(
  name.map((each) => ({ text: each, key: each.toLowerCase() })),
  name.map((each) => ({ text: `${each.toUpperCase()}.`, key: each.toLowerCase() })),
  fc.constantFrom(
    { text: "8.8.8.8", key: "8.8.8.8" },
    { text: "0x08080808", key: "8.8.8.8" },
    { text: "[2001:4860::8888]", key: "2001:4860::8888" },
  ),
);
const pair = fc.record({
  domain: mapKey,
  target: mapTarget,
  port: fc.integer({ min: 1, max: 65535 }),
  space: fc.constantFrom("", " ", "  "),
});

describe("host map: properties", () => {
  it("reads back what an operator writes, in any case and spacing, the last pair for a domain winning", () => {
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 5 }), fc.boolean(), (pairs, trailingComma) => {
        const text = pairs
          .map(({ domain, target, port, space }) => `${space}${domain.text}${space}=${space}${target.text}:${port}${space}`)
          .join(",");
        const map = parseHostMap(trailingComma ? `${text},` : text);
        const expected = new Map<string, { host: string; port: number }>();
        for (const { domain, target, port } of pairs) expected.set(domain.key, { host: target.host, port });
        assert.deepEqual([...map], [...expected]);
      }),
      runs(400),
    );
  });

  it("never throws anything but HostMapError, on any text or any mutation of a valid one", () => {
    const valid = fc
      .array(pair, { minLength: 1, maxLength: 3 })
      .map((pairs) => pairs.map(({ domain, target, port }) => `${domain.text}=${target.text}:${port}`).join(","));
    const mutated = fc
      .tuple(
        valid,
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.constantFrom("", "=", ",", ":", "[", "]", " ", "0", "99999", "\u0000", "é")), {
          minLength: 1,
          maxLength: 3,
        }),
      )
      .map(([text, edits]) => {
        let out = text;
        for (const [at, cut, insert] of edits) {
          const position = at % (out.length + 1);
          out = out.slice(0, position) + insert + out.slice(position + cut);
        }
        return out;
      });
    fc.assert(
      fc.property(fc.oneof(anyString, valid, mutated), (text) => {
        try {
          const map = parseHostMap(text);
          for (const [key, target] of map) {
            assert.ok(key.length > 0);
            assert.ok(Number.isInteger(target.port) && target.port >= 1 && target.port <= 65535);
          }
        } catch (error) {
          assert.ok(error instanceof HostMapError, `threw ${String(error)}`);
          assert.ok(error.message.length > 0);
        }
        const target = parseHostPort(text);
        if (target !== null) assert.ok(target.port >= 1 && target.port <= 65535);
      }),
      runs(800),
    );
  });
});

// ---- The preamble ----

const SECRET = "property-test-secret-0123456789";

const preamble: fc.Arbitrary<EgressPreamble> = fc.record({
  secret: fc.constant(SECRET),
  environment_id: fc.oneof(fc.stringMatching(/^env_[a-z2-7]{24}$/), fc.string({ unit: "grapheme", minLength: 1, maxLength: 64 })),
  policy: fc.oneof(
    fc.constant<EgressPolicy>({ mode: "open" }),
    fc.constant<EgressPolicy>({ mode: "disabled" }),
    fc
      .array(fc.record({ domain: fc.string({ minLength: 1, maxLength: 40 }), headers }), { maxLength: 4 })
      .map((entries): EgressPolicy => ({ mode: "allowlist", entries })),
  ),
});

/** A stand-in for a socket: readPreambleLine only listens, removes listeners and pauses. */
class FakeSocket extends EventEmitter {
  pause(): this {
    return this;
  }
}

describe("preamble: properties", () => {
  it("reads back exactly what the server encodes", () => {
    fc.assert(
      fc.property(preamble, (sent) => {
        const line = encodePreamble(sent);
        assert.equal(line.indexOf("\n"), line.length - 1, "one line, whatever the environment ID holds");
        const check = checkPreamble(line.slice(0, -1), SECRET);
        assert.ok(check.ok, JSON.stringify(check));
        // As plain JSON data (fast-check's records have no prototype; the proxy's objects do).
        assert.deepEqual(check.preamble, JSON.parse(JSON.stringify(sent)));
      }),
      runs(400),
    );
  });

  it("never throws on any line, and never accepts one without the exact secret", () => {
    const nearPreamble = fc.oneof(
      preamble.map((each) => JSON.stringify(each)),
      fc
        .tuple(preamble, fc.oneof(anyString, fc.constantFrom(SECRET.toUpperCase(), `${SECRET} `, SECRET.slice(1), "")))
        .map(([each, secret]) => JSON.stringify({ ...each, secret })),
      fc
        .record(
          { secret: fc.jsonValue({ maxDepth: 1 }), environment_id: fc.jsonValue({ maxDepth: 1 }), policy: fc.jsonValue({ maxDepth: 3 }) },
          { requiredKeys: [] },
        )
        .map((each) => JSON.stringify(each)),
      fc.jsonValue().map((each) => JSON.stringify(each)),
      anyString,
    );
    fc.assert(
      fc.property(nearPreamble, (line) => {
        const check = checkPreamble(line, SECRET);
        if (check.ok) {
          assert.equal(check.preamble.secret, SECRET);
          return;
        }
        assert.ok(["not-json", "wrong-secret", "invalid"].includes(check.reason));
        let presented: unknown;
        try {
          presented = (JSON.parse(line) as { secret?: unknown } | null)?.secret;
        } catch {
          presented = undefined;
        }
        if (presented !== SECRET) assert.notEqual(check.reason, "invalid", "a wrong secret learns nothing about the policy");
      }),
      runs(800),
    );
  });

  it("reads the first line however the bytes are split, and refuses one longer than the limit", async () => {
    const bytes = fc.uint8Array({ maxLength: 80 }).map((array) => Buffer.from(array.filter((byte) => byte !== 0x0a)));
    await fc.assert(
      fc.asyncProperty(
        bytes,
        bytes,
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.integer({ min: 1, max: 100 }),
        async (line, after, cuts, maxBytes) => {
          const all = Buffer.concat([line, Buffer.from("\n"), after]);
          const points = [...new Set(cuts.map((cut) => cut % (all.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...points, all.length].flatMap((start, index, list) => {
            const end = list[index + 1];
            return end === undefined || end <= start ? [] : [all.subarray(start, end)];
          });
          const socket = new FakeSocket();
          const reading = readPreambleLine(socket as unknown as net.Socket, { maxBytes, timeoutMs: 60_000 });
          for (const chunk of chunks) socket.emit("data", chunk);
          socket.emit("end");
          if (line.length > maxBytes) {
            await assert.rejects(reading, (error: unknown) => error instanceof PreambleError && /too long/.test(error.message));
            return;
          }
          const result = await reading;
          assert.equal(result.line, line.toString("utf8"));
          // What followed the newline in its own chunk is handed on; later chunks stay in the socket.
          const newlineAt = line.length;
          const chunkEnd = [...points, all.length].find((point) => point > newlineAt) ?? all.length;
          assert.deepEqual(result.rest, all.subarray(newlineAt + 1, chunkEnd));
          assert.equal(socket.listenerCount("data"), 0, "no listener is left behind");
        },
      ),
      runs(500),
    );
  });
});
