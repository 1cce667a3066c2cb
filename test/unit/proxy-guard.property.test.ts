// Properties of the egress proxy's address guard and of how it reads request targets: every spelling
// of an address inside a refused range (decimal, octal and hexadecimal parts, one to four of them,
// IPv6 in every compression, IPv4-mapped, -compatible, SIIT, NAT64, 6to4 and Teredo embeddings, with
// zone IDs, brackets, trailing dots, unicode digits) is refused end to end, by the same routing the
// proxy uses; every spelling of a public address is allowed, and dialled as its canonical form; only
// the operator's host map lets a refused address through. Nothing here touches the network: the
// resolver is a function of the test, and routing never dials.
//
// The ranges below are written out again on purpose, from the RFCs, rather than imported: the test is
// an independent statement of what must be refused.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  AddressGuard,
  canonicalAddress,
  classifyAddress,
  formatIPv4,
  formatIPv6,
  isLoopbackName,
  parseHost,
  parseIPv4Number,
  parseIPv6Bytes,
} from "../../proxy/address-guard.js";
import { routeDestination, type RouteResult } from "../../proxy/egress-route.js";
import type { HostMap } from "../../proxy/host-map.js";
import { CompiledPolicy } from "../../proxy/policy.js";
import { parseAbsoluteTarget, parseConnectTarget } from "../../proxy/request-target.js";
import type { Resolver } from "../../proxy/resolver.js";
import { runs } from "../support/property-runs.js";

// ---- The refused ranges, from the RFCs ----

type Cidr = { base: number; bits: number; name: string };
const cidr = (dotted: string, bits: number, name: string): Cidr => {
  const [a = 0, b = 0, c = 0, d = 0] = dotted.split(".").map(Number);
  return { base: ((a << 24) | (b << 16) | (c << 8) | d) >>> 0, bits, name };
};

const REFUSED_V4: Cidr[] = [
  cidr("0.0.0.0", 8, "this network (RFC 1122)"),
  cidr("10.0.0.0", 8, "private (RFC 1918)"),
  cidr("100.64.0.0", 10, "shared address space (RFC 6598)"),
  cidr("127.0.0.0", 8, "loopback"),
  cidr("169.254.0.0", 16, "link-local, cloud metadata"),
  cidr("172.16.0.0", 12, "private (RFC 1918)"),
  cidr("192.0.0.0", 24, "IETF protocol assignments"),
  cidr("192.0.2.0", 24, "documentation"),
  cidr("192.88.99.0", 24, "6to4 relay anycast"),
  cidr("192.168.0.0", 16, "private (RFC 1918)"),
  cidr("198.18.0.0", 15, "benchmarking"),
  cidr("198.51.100.0", 24, "documentation"),
  cidr("203.0.113.0", 24, "documentation"),
  cidr("224.0.0.0", 4, "multicast"),
  cidr("240.0.0.0", 4, "reserved, broadcast"),
];

const size = (range: Cidr) => 2 ** (32 - range.bits);
const inRefusedV4 = (value: number) => REFUSED_V4.some((range) => value >= range.base && value < range.base + size(range));

const refusedV4 = fc
  .tuple(fc.constantFrom(...REFUSED_V4), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }))
  .map(([range, at]) => range.base + Math.floor(at * size(range)));
/** Ends of ranges too, where an off-by-one would show. */
const refusedV4Edges = fc.constantFrom(...REFUSED_V4).chain((range) => fc.constantFrom(range.base, range.base + size(range) - 1));
const anyRefusedV4 = fc.oneof(refusedV4, refusedV4Edges);
const publicV4 = fc.nat({ max: 0xffffffff }).filter((value) => !inRefusedV4(value));

// ---- Spellings ----

function bytesOfV4(value: number): number[] {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
}

type Radix = "dec" | "oct" | "hex" | "HEX";
const radix = fc.constantFrom<Radix>("dec", "oct", "hex", "HEX");

function spellNumber(value: number, how: Radix, zeros: number, upper: boolean): string {
  switch (how) {
    case "dec":
      return String(value);
    case "oct":
      return `${"0".repeat(1 + zeros)}${value.toString(8)}`;
    case "hex":
    case "HEX": {
      const digits = value.toString(16);
      return `${how === "hex" ? "0x" : "0X"}${"0".repeat(zeros)}${upper ? digits.toUpperCase() : digits}`;
    }
  }
}

/** `inet_aton` spellings: 1 to 4 parts, the last holding the remaining bytes, each in its own radix. */
const ipv4Spelling = (value: number) =>
  fc
    .record({
      parts: fc.integer({ min: 1, max: 4 }),
      radixes: fc.array(radix, { minLength: 4, maxLength: 4 }),
      zeros: fc.array(fc.nat({ max: 3 }), { minLength: 4, maxLength: 4 }),
      upper: fc.boolean(),
      trailingDot: fc.boolean(),
    })
    .map(({ parts, radixes, zeros, upper, trailingDot }) => {
      const bytes = bytesOfV4(value);
      const leading = bytes.slice(0, parts - 1);
      const last = bytes.slice(parts - 1).reduce((total, byte) => total * 256 + byte, 0);
      const text = [...leading, last].map((part, index) => spellNumber(part, radixes[index] ?? "dec", zeros[index] ?? 0, upper)).join(".");
      return trailingDot ? `${text}.` : text;
    });

function wordsOf(bytes: number[]): number[] {
  const words: number[] = [];
  for (let index = 0; index < 16; index += 2) words.push(((bytes[index] ?? 0) << 8) | (bytes[index + 1] ?? 0));
  return words;
}

/**
 * IPv6 text for 16 bytes: groups with or without leading zeros, in either case, "::" over any run of
 * zero groups (a single one too), and the last 32 bits as a dotted quad when asked.
 */
const ipv6Spelling = (bytes: number[]) =>
  fc
    .record({
      padding: fc.array(fc.nat({ max: 3 }), { minLength: 8, maxLength: 8 }),
      upper: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      compressAt: fc.nat(),
      compressLength: fc.nat(),
      dottedTail: fc.boolean(),
    })
    .map(({ padding, upper, compressAt, compressLength, dottedTail }) => {
      const words = wordsOf(bytes);
      const groups = words.map((word, index) => {
        const hex = word.toString(16).padStart(Math.min(4, word.toString(16).length + (padding[index] ?? 0)), "0");
        return upper[index] ? hex.toUpperCase() : hex;
      });
      const tail = dottedTail ? [bytesOfV4((((words[6] ?? 0) << 16) | (words[7] ?? 0)) >>> 0).join(".")] : [];
      const head = dottedTail ? groups.slice(0, 6) : groups;
      // Runs of zero groups in the head, one of which may become "::".
      const runs: Array<[number, number]> = [];
      for (let start = 0; start < head.length; start++) {
        if (words[start] !== 0) continue;
        let end = start;
        while (end < head.length && words[end] === 0) end++;
        runs.push([start, end]);
        start = end;
      }
      const chosen = runs.length > 0 && compressAt % 3 !== 0 ? runs[compressAt % runs.length] : undefined;
      if (!chosen) return [...head, ...tail].join(":");
      const [start, end] = chosen;
      const cut = start + 1 + (compressLength % (end - start)); // a non-empty part of the run, from its start
      const left = head.slice(0, start).join(":");
      const right = [...head.slice(cut), ...tail].join(":");
      return `${left}::${right}`;
    });

const v6 = (prefix: number[], rest: fc.Arbitrary<number[]>) => rest.map((tail) => [...prefix, ...tail]);
const fixed = (bytes: number[]): fc.Arbitrary<number[]> => fc.constant(bytes);
const randomBytes = (length: number) => fc.array(fc.nat({ max: 255 }), { minLength: length, maxLength: length });

/** Ways an IPv6 address carries an IPv4 address that it reaches. */
function embeddings(value: number): fc.Arbitrary<number[]> {
  const v4 = bytesOfV4(value);
  const zeros = (count: number) => new Array<number>(count).fill(0);
  return fc.oneof(
    fixed([...zeros(10), 0xff, 0xff, ...v4]), // IPv4-mapped ::ffff:a.b.c.d
    fixed([...zeros(12), ...v4]), // IPv4-compatible ::a.b.c.d
    fixed([...zeros(8), 0xff, 0xff, 0, 0, ...v4]), // SIIT ::ffff:0:a.b.c.d
    fixed([0x00, 0x64, 0xff, 0x9b, ...zeros(8), ...v4]), // NAT64 64:ff9b::/96
    randomBytes(10).map((rest) => [0x20, 0x02, ...v4, ...rest]), // 6to4 2002:AABB:CCDD::/48
  );
}

/** Teredo 2001:0::/32 with this server and an inverted client address. */
const teredo = (server: number, client: number) =>
  randomBytes(4).map((flagsAndPort) => [0x20, 0x01, 0, 0, ...bytesOfV4(server), ...flagsAndPort, ...bytesOfV4(~client >>> 0)]);

/** IPv6 ranges refused in their own right. */
const refusedNativeV6 = fc.oneof(
  fixed(new Array<number>(16).fill(0)), // ::
  fixed([...new Array<number>(15).fill(0), 1]), // ::1
  randomBytes(15).map(([second = 0, ...rest]) => [0xfe, 0x80 | (second & 0x3f), ...rest]), // fe80::/10 link-local
  randomBytes(15).map(([second = 0, ...rest]) => [0xfe, 0xc0 | (second & 0x3f), ...rest]), // fec0::/10 site-local
  fc.tuple(fc.constantFrom(0xfc, 0xfd), randomBytes(15)).map(([first, rest]) => [first, ...rest]), // fc00::/7 unique local
  randomBytes(15).map((rest) => [0xff, ...rest]), // ff00::/8 multicast
  v6([0x20, 0x01, 0x0d, 0xb8], randomBytes(12)), // 2001:db8::/32 documentation
  v6([0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], randomBytes(10)), // 64:ff9b:1::/48 local-use NAT64
  v6([0x01, 0x00, 0, 0, 0, 0, 0, 0], randomBytes(8)), // 100::/64 discard
  // Outside 2000::/3 (global unicast) and outside the embedding prefixes: reserved.
  fc
    .tuple(fc.constantFrom(0x40, 0x60, 0x80, 0xa0, 0xc0, 0xe0, 0x10, 0x04), randomBytes(15))
    .map(([first, rest]) => [first | ((rest[0] ?? 0) & 0x0f), ...rest]),
);

const refusedV6 = fc.oneof(
  refusedNativeV6,
  anyRefusedV4.chain(embeddings),
  fc.tuple(anyRefusedV4, fc.nat({ max: 0xffffffff })).chain(([server, client]) => teredo(server, client)),
  fc.tuple(publicV4, anyRefusedV4).chain(([server, client]) => teredo(server, client)),
);

/** Global unicast 2000::/3 away from 6to4, Teredo and documentation: public in its own right. */
const publicNativeV6 = randomBytes(16)
  .map(([first = 0, ...rest]) => [0x20 | (first & 0x1f), ...rest])
  .filter(
    ([a, b, c, d]) => !(a === 0x20 && b === 0x02) && !(a === 0x20 && b === 0x01 && ((c === 0 && d === 0) || (c === 0x0d && d === 0xb8))),
  );
const publicV6 = fc.oneof(
  publicNativeV6,
  publicV4.chain((value) => embeddings(value)),
  fc.tuple(publicV4, publicV4).chain(([server, client]) => teredo(server, client)),
);

const expectedV6 = (bytes: number[]) => formatIPv6(Uint8Array.from(bytes));

/** An address with the spelling a request would use for it, and its canonical text. */
type Spelled = { raw: string; canonical: string };
const spelledV4 = (values: fc.Arbitrary<number>) =>
  values.chain((value) => ipv4Spelling(value).map((raw): Spelled => ({ raw, canonical: formatIPv4(value) })));
const spelledV6 = (addresses: fc.Arbitrary<number[]>) =>
  addresses.chain((bytes) => ipv6Spelling(bytes).map((text): Spelled => ({ raw: `[${text}]`, canonical: expectedV6(bytes) })));

const refusedSpelled = fc.oneof(spelledV4(anyRefusedV4), spelledV6(refusedV6));
const publicSpelled = fc.oneof(spelledV4(publicV4), spelledV6(publicV6));

/** Decorations that must never turn a refused address into a reachable one. */
const decorated = refusedSpelled.chain(({ raw }) =>
  fc.constantFrom(
    raw,
    raw.toUpperCase(),
    ` ${raw}\t`,
    `${raw}.`,
    `${raw}..`,
    `[${raw}]`,
    raw.startsWith("[") ? `${raw.slice(0, -1)}%eth0]` : `${raw}%eth0`,
    raw.startsWith("[") ? `${raw.slice(0, -1)}%25lo]` : `${raw}%25lo`,
    raw.startsWith("[") ? raw.slice(1, -1) : raw,
    raw.startsWith("[") ? raw.slice(0, -1) : `[${raw}`,
    raw.replace(/[0-9]/g, (digit) => String.fromCharCode(0xff10 + Number(digit))), // fullwidth digits
    raw.replace(/\./g, "\u3002"), // ideographic full stop
    raw.replace(/\./g, "%2e"),
    `${raw}\u0000`,
    `x@${raw}`,
  ),
);

// ---- Routing, exactly as the proxy routes, with a resolver and host map of the test's choosing ----

const OPEN = new CompiledPolicy({ mode: "open" });
const noMap: HostMap = new Map();

/** A resolver that answers every name with `answers`, and records that it was asked. */
function resolverAnswering(answers: string[]): Resolver & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    lookup: async (host) => {
      asked.push(host);
      return answers;
    },
  };
}

/** Routes a CONNECT to `raw:443` and a GET of `http://raw/`: both must reach the same verdict. */
async function route(
  raw: string,
  options: { hostMap?: HostMap; resolver?: Resolver; guard?: AddressGuard } = {},
): Promise<RouteResult | null> {
  const dependencies = {
    hostMap: options.hostMap ?? noMap,
    resolver: options.resolver ?? resolverAnswering(["93.184.216.34"]),
    guard: options.guard ?? new AddressGuard(),
  };
  const connect = parseConnectTarget(`${raw}:443`);
  const absolute = parseAbsoluteTarget(`http://${raw}/`);
  const viaConnect = "error" in connect ? null : await routeDestination(OPEN, connect, dependencies);
  const viaAbsolute = "error" in absolute ? null : await routeDestination(OPEN, absolute, dependencies);
  assert.equal(viaConnect?.ok ?? null, viaAbsolute?.ok ?? null, `CONNECT and absolute-form disagree on ${JSON.stringify(raw)}`);
  return viaConnect;
}

// ---- Arbitrary and near-grammar strings ----

const anyString = fc.string({ unit: "binary", maxLength: 60 });
const hostAlphabet = fc.constantFrom(
  ..."0123456789abcdefxX.:[]%@/\\ \t-_".split(""),
  "\u0000",
  "\uff11",
  "\u3002",
  "é",
  "\ud800",
  "::",
  "0x",
  "ffff",
);
const nearHost = fc.oneof(
  fc.string({ unit: hostAlphabet, maxLength: 40 }),
  fc.constantFrom(
    "4294967296",
    "99999999999999999999999999",
    `0x${"f".repeat(400)}`,
    `${"9".repeat(400)}.1`,
    "1.2.3.4.5",
    "256.0.0.1",
    "0x100.0.0.1",
    "[::ffff:127.1]",
    "[::ffff:0x7f000001]",
    "[1:2:3:4:5:6:7:8:9]",
    "[::1::]",
    "[:::]",
    "[::1]:",
    "[]",
    "[",
    "]",
    "..",
    ".",
    "",
    "a..b",
    "-a.example",
    "xn--.example",
    "localhost.",
    "LOCALHOST",
    "foo.localhost",
    "ip6-localhost",
  ),
);
/** Valid spellings with random characters cut, doubled or inserted. */
const mutatedHost = fc
  .tuple(
    fc.oneof(refusedSpelled, publicSpelled),
    fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), hostAlphabet), { minLength: 1, maxLength: 3 }),
  )
  .map(([{ raw }, edits]) => {
    let out = raw;
    for (const [at, cut, insert] of edits) {
      const position = out.length === 0 ? 0 : at % (out.length + 1);
      out = out.slice(0, position) + insert + out.slice(position + cut);
    }
    return out;
  });
const hostLike = fc.oneof(anyString, nearHost, mutatedHost);

// ---- The properties ----

describe("address guard: properties", () => {
  it("reads every inet_aton spelling of an IPv4 address as that address, as the WHATWG URL parser does", () => {
    fc.assert(
      fc.property(spelledV4(fc.nat({ max: 0xffffffff })), ({ raw, canonical }) => {
        assert.deepEqual(parseHost(raw), { kind: "address", family: 4, address: canonical });
        assert.equal(new URL(`http://${raw}/`).hostname, canonical);
      }),
      runs(500),
    );
  });

  it("reads every spelling of an IPv6 address as its RFC 5952 text, as the WHATWG URL parser does", () => {
    fc.assert(
      fc.property(spelledV6(fc.oneof(randomBytes(16), refusedV6, publicV6)), ({ raw, canonical }) => {
        assert.deepEqual(parseHost(raw), { kind: "address", family: 6, address: canonical });
        assert.equal(new URL(`http://${raw}/`).hostname, `[${canonical}]`);
      }),
      runs(500),
    );
  });

  it("refuses every address in a loopback, private, link-local or reserved range, in every spelling", async () => {
    await fc.assert(
      fc.asyncProperty(refusedSpelled, async ({ raw, canonical }) => {
        assert.equal(classifyAddress(canonical).allowed, false, canonical);
        assert.equal(new AddressGuard().check(raw).allowed, false, raw);
        const resolver = resolverAnswering(["93.184.216.34"]);
        const result = await route(raw, { resolver });
        assert.ok(result && !result.ok, `${raw} (${canonical}) was allowed`);
        assert.match(result.refusal.reason, /^blocked-address:/);
        assert.deepEqual(resolver.asked, [], "a literal never goes to the resolver");
      }),
      runs(600),
    );
  });

  it("never lets a decorated spelling of a refused address through (zone IDs, brackets, dots, unicode digits…)", async () => {
    await fc.assert(
      fc.asyncProperty(decorated, async (raw) => {
        const resolver = resolverAnswering(["93.184.216.34"]);
        const result = await route(raw, { resolver });
        assert.ok(result === null || !result.ok, `${JSON.stringify(raw)} was allowed`);
        assert.deepEqual(resolver.asked, [], `${JSON.stringify(raw)} was sent to the resolver as a name`);
      }),
      runs(600),
    );
  });

  it("allows every public address in every spelling, and dials its canonical form", async () => {
    await fc.assert(
      fc.asyncProperty(publicSpelled, async ({ raw, canonical }) => {
        assert.equal(classifyAddress(canonical).allowed, true, canonical);
        const resolver = resolverAnswering([]);
        const result = await route(raw, { resolver });
        assert.ok(result?.ok, `${raw} (${canonical}) was refused: ${JSON.stringify(result)}`);
        assert.deepEqual(result.route.addresses, [canonical]);
        assert.equal(result.route.mapped, false);
        assert.deepEqual(resolver.asked, []);
      }),
      runs(500),
    );
  });

  it("refuses the machine's own public addresses (self) in every spelling", () => {
    fc.assert(
      fc.property(publicSpelled, fc.array(publicSpelled, { maxLength: 3 }), ({ raw, canonical }, others) => {
        const guard = new AddressGuard([...others.map((other) => other.raw.replace(/^\[|\]$/g, "")), canonical]);
        assert.deepEqual(guard.check(raw.replace(/^\[|\]$/g, "")), { allowed: false, category: "self" });
      }),
      runs(300),
    );
  });

  it("sends a host-mapped address (refused or public) to the operator's target, and lets no other refused address through", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(refusedSpelled, publicSpelled),
        refusedSpelled,
        fc.integer({ min: 1, max: 65535 }),
        async (mapped, other, port) => {
          fc.pre(mapped.canonical !== other.canonical);
          const hostMap: HostMap = new Map([[mapped.canonical, { host: "127.0.0.1", port }]]);
          const allowed = await route(mapped.raw, { hostMap });
          assert.ok(allowed?.ok, `${mapped.raw} is mapped`);
          assert.equal(allowed.route.mapped, true);
          assert.deepEqual([allowed.route.addresses, allowed.route.dialPort], [["127.0.0.1"], port]);
          const refused = await route(other.raw, { hostMap });
          assert.ok(refused && !refused.ok, `${other.raw} is not mapped`);
        },
      ),
      runs(300),
    );
  });

  it("refuses a name when any address it resolves to is refused, in whatever spelling the resolver returns it", async () => {
    const spellingAsAnswer = (spelled: Spelled) => spelled.raw.replace(/^\[|\]$/g, "");
    await fc.assert(
      fc.asyncProperty(
        fc.array(publicSpelled, { maxLength: 3 }),
        refusedSpelled,
        fc.nat(),
        fc.constantFrom("api.example.com", "rebind.example", "x.y.z.example"),
        async (publics, refused, at, name) => {
          const answers = publics.map(spellingAsAnswer);
          answers.splice(at % (answers.length + 1), 0, spellingAsAnswer(refused));
          const result = await route(name, { resolver: resolverAnswering(answers) });
          assert.ok(result && !result.ok, `${name} → ${answers.join(", ")} was allowed`);
          assert.match(result.refusal.reason, /^blocked-address:/);
        },
      ),
      runs(300),
    );
  });

  it("dials a name only at the checked, canonical addresses it resolved to, in order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(publicSpelled, { minLength: 1, maxLength: 4 }), async (publics) => {
        const answers = publics.map((spelled) => spelled.raw.replace(/^\[|\]$/g, ""));
        const result = await route("api.example.com", { resolver: resolverAnswering(answers) });
        assert.ok(result?.ok);
        assert.deepEqual(
          result.route.addresses,
          publics.map((spelled) => spelled.canonical),
        );
      }),
      runs(300),
    );
  });

  it("never throws on any string, and only ever answers address, name or invalid", () => {
    const guard = new AddressGuard(["8.8.8.8"]);
    fc.assert(
      fc.property(hostLike, (raw) => {
        const parsed = parseHost(raw);
        assert.ok(["address", "name", "invalid"].includes(parsed.kind));
        const verdict = guard.check(raw);
        assert.equal(typeof verdict.allowed, "boolean");
        classifyAddress(raw);
        isLoopbackName(raw);
        parseIPv4Number(raw);
        parseIPv6Bytes(raw);
        const canonical = canonicalAddress(raw);
        if (parsed.kind === "address") {
          // Canonical text is a fixed point, and reads as the same address family.
          assert.equal(canonical, parsed.address);
          assert.deepEqual(parseHost(parsed.address), parsed);
          assert.deepEqual(parseHost(parsed.family === 6 ? `[${parsed.address}]` : parsed.address), parsed);
        } else {
          assert.equal(canonical, null);
        }
        if (parsed.kind === "name") {
          // A name is plain lowercase LDH (plus "_") labels: nothing a resolver could read as a number or an IPv6 literal.
          assert.match(parsed.name, /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/);
          assert.doesNotMatch(parsed.name.split(".").at(-1) ?? "", /^(0x[0-9a-f]*|[0-9]+)$/);
        }
      }),
      runs(2000),
    );
  });

  it("round-trips canonical text: format(parse(x)) is x for every IPv4 value and every 16 bytes", () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), randomBytes(16), (value, bytes) => {
        assert.equal(parseIPv4Number(formatIPv4(value)), value);
        assert.deepEqual([...(parseIPv6Bytes(formatIPv6(Uint8Array.from(bytes))) ?? [])], bytes);
      }),
      runs(500),
    );
  });
});

describe("request targets: properties", () => {
  const port = fc.integer({ min: 1, max: 65535 });
  const name = fc.oneof(
    fc.domain(),
    fc.constantFrom("api.example.com", "A.Example.COM.", "under_score.example", "1e5", "xn--bcher-kva.example"),
  );
  const host = fc.oneof(
    name.map((raw) => ({ raw, host: raw.toLowerCase().replace(/\.$/, ""), isAddress: false })),
    fc.oneof(refusedSpelled, publicSpelled).map((spelled) => ({ raw: spelled.raw, host: spelled.canonical, isAddress: true })),
  );

  it("read host and port from CONNECT and absolute-form alike, and write a Host header that reads back the same", () => {
    fc.assert(
      fc.property(
        host,
        fc.option(port, { nil: undefined }),
        fc.constantFrom("http", "https", "HTTP"),
        fc.webPath(),
        (target, chosen, scheme, path) => {
          const defaultPort = scheme.toLowerCase() === "https" ? 443 : 80;
          const authority = chosen === undefined ? target.raw : `${target.raw}:${chosen}`;
          const absolute = parseAbsoluteTarget(`${scheme}://${authority}${path}`);
          assert.ok(!("error" in absolute), `${scheme}://${authority}${path}: ${JSON.stringify(absolute)}`);
          assert.deepEqual([absolute.host, absolute.isAddress, absolute.port], [target.host, target.isAddress, chosen ?? defaultPort]);
          assert.ok(absolute.path.startsWith("/"));
          // The Host header written upstream names the same destination when read back.
          const again = parseAbsoluteTarget(`${absolute.scheme}://${absolute.authority}/`);
          assert.ok(!("error" in again), absolute.authority);
          assert.deepEqual([again.host, again.port], [absolute.host, absolute.port]);
          if (chosen !== undefined) {
            const connect = parseConnectTarget(authority);
            assert.ok(!("error" in connect));
            assert.deepEqual([connect.host, connect.port], [target.host, chosen]);
          }
        },
      ),
      runs(500),
    );
  });

  it("never accept user information, whatever surrounds the @", () => {
    // Any user part that stays inside the authority (no "/", which would end it).
    const userPart = fc.string({ unit: hostAlphabet, maxLength: 12 }).map((text) => text.replaceAll("/", ""));
    fc.assert(
      fc.property(userPart, host, (user, target) => {
        assert.ok("error" in parseAbsoluteTarget(`http://${user}@${target.raw}/`));
        assert.ok("error" in parseConnectTarget(`${user}@${target.raw}:443`));
      }),
      runs(300),
    );
  });

  it("never throw on any target, and agree with the WHATWG URL parser on every host both accept", () => {
    fc.assert(
      fc.property(hostLike, fc.constantFrom("", ":80", ":0", ":65536", ":-1", ":", ":08", "/x", "?q", "#f", "\\x"), (raw, suffix) => {
        const connect = parseConnectTarget(`${raw}${suffix}`);
        if (!("error" in connect)) assert.ok(connect.port >= 1 && connect.port <= 65535);
        const url = `http://${raw}${suffix}`;
        const absolute = parseAbsoluteTarget(url);
        if ("error" in absolute) return;
        assert.ok(absolute.port >= 1 && absolute.port <= 65535);
        let whatwg: URL;
        try {
          whatwg = new URL(url);
        } catch {
          return;
        }
        const theirs = whatwg.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
        assert.equal(absolute.host, theirs, `${url}: proxy reads ${absolute.host}, WHATWG reads ${theirs}`);
      }),
      runs(1500),
    );
  });
});
