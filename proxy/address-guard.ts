// The address guard: which destinations a sandbox may never reach, whatever its allowlist says.
//
// The threat is server-side request forgery: a sandbox asking the proxy (which sits on the host side)
// to open connections to the host's loopback services, the private network, the cloud metadata
// endpoint, or the emulator itself. Two rules make the guard hold:
//   1. Host literals are parsed here, in every spelling the C library would accept (`127.1`,
//      `2130706433`, `0x7f000001`, `0177.0.0.1`, IPv6 forms that embed an IPv4 address…), so a literal
//      never reaches `getaddrinfo` to be interpreted differently from what was checked.
//   2. The verdict is made on the address that is actually dialled (see egress-route.ts).

export type BlockedCategory =
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "multicast"
  | "unspecified"
  | "broadcast"
  | "reserved"
  | "self";

export type AddressVerdict = { allowed: true } | { allowed: false; category: BlockedCategory };

export type ParsedHost =
  | { kind: "address"; family: 4 | 6; address: string }
  | { kind: "name"; name: string }
  | { kind: "invalid"; why: string };

const ALLOWED: AddressVerdict = { allowed: true };
const blocked = (category: BlockedCategory): AddressVerdict => ({ allowed: false, category });

// ---------------------------------------------------------------------------------------------
// Parsing

const HEX_PART = /^0x[0-9a-f]*$/i;
const OCTAL_PART = /^0[0-7]*$/;
const DECIMAL_PART = /^[1-9][0-9]*$/;
const NUMERIC_LOOKING = /^(?:0x[0-9a-f]*|[0-9]+)$/i;

function parseInetAtonPart(part: string): number | null {
  if (HEX_PART.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (OCTAL_PART.test(part)) return parseInt(part, 8);
  if (DECIMAL_PART.test(part)) return parseInt(part, 10);
  return null;
}

/**
 * IPv4 in the `inet_aton` spellings the resolver accepts: one to four parts, each decimal, octal
 * (leading 0) or hexadecimal (0x); the last part fills the remaining bytes (`127.1` = 127.0.0.1,
 * `2130706433` = 127.0.0.1). Returns the 32-bit value, or null when `text` is not such a literal.
 */
export function parseIPv4Number(text: string): number | null {
  const parts = text.split(".");
  if (parts.length < 1 || parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    const value = parseInetAtonPart(part);
    if (value === null || !Number.isFinite(value)) return null;
    values.push(value);
  }
  const last = values.pop() ?? 0;
  for (const value of values) if (value > 255) return null;
  const lastMax = 2 ** (8 * (4 - values.length)) - 1;
  if (last > lastMax) return null;
  let result = 0;
  values.forEach((value, index) => {
    result += value * 2 ** (8 * (3 - index));
  });
  return result + last;
}

export function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}

const STRICT_DOTTED_QUAD = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** IPv6 text (no brackets, no zone) to 16 bytes, or null. Accepts a trailing dotted quad. */
export function parseIPv6Bytes(text: string): Uint8Array | null {
  if (text.length === 0 || text.length > 45 || !/^[0-9a-f:.]+$/i.test(text)) return null;
  let head = text;
  const tailWords: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (lastColon < 0) return null;
  const lastPiece = text.slice(lastColon + 1);
  if (lastPiece.includes(".")) {
    if (!STRICT_DOTTED_QUAD.test(lastPiece)) return null;
    const v4 = parseIPv4Number(lastPiece);
    if (v4 === null) return null;
    tailWords.push(v4 >>> 16, v4 & 0xffff);
    // Keep a "::" before the dotted quad ("::1.2.3.4"), drop a single separating colon.
    head = text.slice(0, lastColon + 1);
    if (!head.endsWith("::")) head = head.slice(0, -1);
  }
  const doubleColon = head.indexOf("::");
  if (doubleColon !== head.lastIndexOf("::")) return null;
  const parseGroups = (part: string): number[] | null => {
    if (part === "") return [];
    const groups = part.split(":");
    const words: number[] = [];
    for (const group of groups) {
      if (!/^[0-9a-f]{1,4}$/i.test(group)) return null;
      words.push(parseInt(group, 16));
    }
    return words;
  };
  let words: number[];
  if (doubleColon >= 0) {
    const left = parseGroups(head.slice(0, doubleColon));
    const right = parseGroups(head.slice(doubleColon + 2));
    if (left === null || right === null) return null;
    const missing = 8 - left.length - right.length - tailWords.length;
    if (missing < 1) return null;
    words = [...left, ...new Array<number>(missing).fill(0), ...right, ...tailWords];
  } else {
    const all = parseGroups(head);
    if (all === null) return null;
    words = [...all, ...tailWords];
    if (words.length !== 8) return null;
  }
  const bytes = new Uint8Array(16);
  words.forEach((word, index) => {
    bytes[index * 2] = word >>> 8;
    bytes[index * 2 + 1] = word & 255;
  });
  return bytes;
}

/** RFC 5952 text: lowercase, longest run of two or more zero groups compressed. */
export function formatIPv6(bytes: Uint8Array): string {
  const words: number[] = [];
  for (let index = 0; index < 16; index += 2) words.push(((bytes[index] ?? 0) << 8) | (bytes[index + 1] ?? 0));
  let bestStart = -1;
  let bestLength = 0;
  for (let start = 0; start < 8; ) {
    if (words[start] !== 0) {
      start += 1;
      continue;
    }
    let end = start;
    while (end < 8 && words[end] === 0) end += 1;
    if (end - start > bestLength && end - start >= 2) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end;
  }
  const hex = words.map((word) => word.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}

const NAME_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * A request's host (from a CONNECT authority or an absolute URI, brackets allowed) to either a
 * canonical address or a lowercase name without trailing dot. Anything else is invalid: refusing odd
 * spellings (percent signs, zone IDs, unicode) means the name that is checked is the name dialled.
 */
export function parseHost(raw: string): ParsedHost {
  let host = raw.trim().toLowerCase();
  if (host.startsWith("[")) {
    if (!host.endsWith("]")) return { kind: "invalid", why: "unbalanced brackets" };
    const bytes = parseIPv6Bytes(host.slice(1, -1));
    if (bytes === null) return { kind: "invalid", why: "not an IPv6 address" };
    return { kind: "address", family: 6, address: formatIPv6(bytes) };
  }
  if (host.includes(":")) {
    const bytes = parseIPv6Bytes(host);
    if (bytes === null) return { kind: "invalid", why: "not an IPv6 address" };
    return { kind: "address", family: 6, address: formatIPv6(bytes) };
  }
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (host.length === 0 || host.length > 253) return { kind: "invalid", why: "empty or too long" };
  const labels = host.split(".");
  // As the WHATWG URL parser does: a host whose last label is numeric must be an IPv4 literal; it is
  // never sent to DNS, where getaddrinfo would apply its own (different) reading of it.
  if (NUMERIC_LOOKING.test(labels[labels.length - 1] ?? "")) {
    const value = parseIPv4Number(host);
    if (value === null) return { kind: "invalid", why: "not a valid IPv4 address" };
    return { kind: "address", family: 4, address: formatIPv4(value) };
  }
  if (!labels.every((label) => NAME_LABEL.test(label))) return { kind: "invalid", why: "not a valid host name" };
  return { kind: "name", name: host };
}

// ---------------------------------------------------------------------------------------------
// Classification

/** Names that resolve to the machine itself without DNS (RFC 6761 and Debian's /etc/hosts). */
export function isLoopbackName(name: string): boolean {
  const host = name.toLowerCase().replace(/\.$/, "");
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "localhost.localdomain" ||
    host === "ip6-localhost" ||
    host === "ip6-loopback"
  );
}

type Ipv4Range = { base: number; bits: number; category: BlockedCategory };

const ipv4 = (dotted: string, bits: number, category: BlockedCategory): Ipv4Range => ({
  base: parseIPv4Number(dotted) ?? 0,
  bits,
  category,
});

// Order matters only for overlaps (broadcast inside 240/4).
const REFUSED_IPV4: Ipv4Range[] = [
  ipv4("0.0.0.0", 8, "unspecified"), // "this network": 0.x.x.x connects to the local host on Linux
  ipv4("10.0.0.0", 8, "private"),
  ipv4("100.64.0.0", 10, "cgnat"),
  ipv4("127.0.0.0", 8, "loopback"),
  ipv4("169.254.0.0", 16, "link-local"), // includes the cloud metadata endpoint 169.254.169.254
  ipv4("172.16.0.0", 12, "private"),
  ipv4("192.0.0.0", 24, "reserved"), // IETF protocol assignments
  ipv4("192.0.2.0", 24, "reserved"), // documentation
  ipv4("192.88.99.0", 24, "reserved"), // deprecated 6to4 relay anycast
  ipv4("192.168.0.0", 16, "private"),
  ipv4("198.18.0.0", 15, "reserved"), // benchmarking; also used for internal fake-IP networks
  ipv4("198.51.100.0", 24, "reserved"), // documentation
  ipv4("203.0.113.0", 24, "reserved"), // documentation
  ipv4("224.0.0.0", 4, "multicast"),
  ipv4("255.255.255.255", 32, "broadcast"),
  ipv4("240.0.0.0", 4, "reserved"),
];

export function classifyIPv4(value: number): AddressVerdict {
  for (const range of REFUSED_IPV4) {
    const size = 2 ** (32 - range.bits);
    if (value >= range.base && value < range.base + size) return blocked(range.category);
  }
  return ALLOWED;
}

function readUint32(bytes: Uint8Array, offset: number): number {
  return (
    (((bytes[offset] ?? 0) << 24) | ((bytes[offset + 1] ?? 0) << 16) | ((bytes[offset + 2] ?? 0) << 8) | (bytes[offset + 3] ?? 0)) >>> 0
  );
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

function allZero(bytes: Uint8Array, from: number, to: number): boolean {
  for (let index = from; index < to; index += 1) if (bytes[index] !== 0) return false;
  return true;
}

export function classifyIPv6(bytes: Uint8Array): AddressVerdict {
  const first = bytes[0] ?? 0;
  const second = bytes[1] ?? 0;
  if (allZero(bytes, 0, 16)) return blocked("unspecified");
  if (allZero(bytes, 0, 15) && bytes[15] === 1) return blocked("loopback");
  // Forms that carry an IPv4 address in their last 32 bits and reach it: IPv4-mapped ::ffff:a.b.c.d,
  // IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks), SIIT ::ffff:0:a.b.c.d, and the
  // NAT64 well-known prefix 64:ff9b::/96. They are judged by the IPv4 address inside.
  const mapped = allZero(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff;
  const compatible = allZero(bytes, 0, 12);
  const translated = allZero(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && allZero(bytes, 10, 12);
  const nat64 = startsWith(bytes, [0x00, 0x64, 0xff, 0x9b]) && allZero(bytes, 4, 12);
  if (mapped || compatible || translated || nat64) return classifyIPv4(readUint32(bytes, 12));
  // Local-use NAT64 (RFC 8215) translates into whatever network the operator chose: a local network.
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01])) return blocked("private");
  // 6to4 2002:AABB:CCDD::/48 tunnels to the IPv4 address AABBCCDD.
  if (first === 0x20 && second === 0x02) return classifyIPv4(readUint32(bytes, 2));
  // Teredo 2001:0::/32: server IPv4 in bits 32-63, client IPv4 inverted in the last 32 bits.
  if (startsWith(bytes, [0x20, 0x01, 0x00, 0x00])) {
    const server = classifyIPv4(readUint32(bytes, 4));
    if (!server.allowed) return server;
    return classifyIPv4(~readUint32(bytes, 12) >>> 0);
  }
  if (startsWith(bytes, [0x20, 0x01, 0x0d, 0xb8])) return blocked("reserved"); // documentation
  if (startsWith(bytes, [0x01, 0x00]) && allZero(bytes, 2, 8)) return blocked("reserved"); // discard 100::/64
  if ((first & 0xfe) === 0xfc) return blocked("private"); // unique local fc00::/7
  if (first === 0xfe && (second & 0xc0) === 0x80) return blocked("link-local"); // fe80::/10
  if (first === 0xfe && (second & 0xc0) === 0xc0) return blocked("private"); // site-local fec0::/10 (deprecated)
  if (first === 0xff) return blocked("multicast");
  if ((first & 0xe0) !== 0x20) return blocked("reserved"); // outside global unicast 2000::/3
  return ALLOWED;
}

/** The verdict on a canonical (or any textual) IP address; non-addresses are refused as reserved. */
export function classifyAddress(address: string): AddressVerdict {
  const parsed = parseHost(address);
  if (parsed.kind !== "address") return blocked("reserved");
  if (parsed.family === 4) return classifyIPv4(parseIPv4Number(parsed.address) ?? 0);
  const bytes = parseIPv6Bytes(parsed.address);
  return bytes === null ? blocked("reserved") : classifyIPv6(bytes);
}

/** Canonical text of an IP address in any accepted spelling, or null for a name or garbage. */
export function canonicalAddress(text: string): string | null {
  const parsed = parseHost(text);
  return parsed.kind === "address" ? parsed.address : null;
}

/**
 * The guard as used by the proxy: the fixed classification, plus the machine's own addresses (the
 * emulator's host, when it listens on a public interface), which are refused as `self`.
 */
export class AddressGuard {
  private readonly selfAddresses: Set<string>;

  constructor(selfAddresses: Iterable<string> = []) {
    this.selfAddresses = new Set();
    for (const address of selfAddresses) {
      const canonical = canonicalAddress(address);
      if (canonical !== null) this.selfAddresses.add(canonical);
    }
  }

  check(address: string): AddressVerdict {
    const verdict = classifyAddress(address);
    if (!verdict.allowed) return verdict;
    const canonical = canonicalAddress(address);
    if (canonical !== null && this.selfAddresses.has(canonical)) return blocked("self");
    return ALLOWED;
  }
}
