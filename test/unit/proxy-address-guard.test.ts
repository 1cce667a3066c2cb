import assert from "node:assert/strict";
import net from "node:net";
import { describe, it } from "node:test";
import { AddressGuard, classifyAddress, formatIPv6, isLoopbackName, parseHost, parseIPv6Bytes } from "../../proxy/address-guard.js";

describe("host literals are parsed in every spelling the resolver would accept", () => {
  const table: Array<{ raw: string; address: string }> = [
    { raw: "127.0.0.1", address: "127.0.0.1" },
    { raw: "127.1", address: "127.0.0.1" },
    { raw: "127.0.1", address: "127.0.0.1" },
    { raw: "2130706433", address: "127.0.0.1" },
    { raw: "0x7f000001", address: "127.0.0.1" },
    { raw: "0X7F000001", address: "127.0.0.1" },
    { raw: "017700000001", address: "127.0.0.1" },
    { raw: "0177.0.0.1", address: "127.0.0.1" },
    { raw: "0x7f.0.0.1", address: "127.0.0.1" },
    { raw: "0x7f.1", address: "127.0.0.1" },
    { raw: "127.0.0.1.", address: "127.0.0.1" },
    { raw: "0", address: "0.0.0.0" },
    { raw: "0x", address: "0.0.0.0" },
    { raw: "169.254.43518", address: "169.254.169.254" },
    { raw: "0xa9fea9fe", address: "169.254.169.254" },
    { raw: "8.8.8.8", address: "8.8.8.8" },
    { raw: "[::1]", address: "::1" },
    { raw: "[0:0:0:0:0:0:0:1]", address: "::1" },
    { raw: "[0000:0000:0000:0000:0000:0000:0000:0001]", address: "::1" },
    { raw: "[::]", address: "::" },
    { raw: "[::ffff:127.0.0.1]", address: "::ffff:7f00:1" },
    { raw: "[::ffff:7f00:1]", address: "::ffff:7f00:1" },
    { raw: "[::FFFF:7F00:0001]", address: "::ffff:7f00:1" },
    { raw: "[::127.0.0.1]", address: "::7f00:1" },
    { raw: "[64:ff9b::10.0.0.1]", address: "64:ff9b::a00:1" },
    { raw: "[2001:DB8:0:0:1:0:0:1]", address: "2001:db8::1:0:0:1" },
    { raw: "[fe80::1]", address: "fe80::1" },
    { raw: "::1", address: "::1" },
  ];
  for (const { raw, address } of table) {
    it(`${raw} is the address ${address}`, () => {
      assert.deepEqual(parseHost(raw), { kind: "address", family: address.includes(":") ? 6 : 4, address });
    });
  }

  it("agrees with the WHATWG URL parser on every IPv4 spelling", () => {
    for (const { raw, address } of table.filter((row) => !row.raw.includes(":") && row.raw !== "0x" && row.raw !== "0X7F000001")) {
      assert.equal(new URL(`http://${raw}/`).hostname, address, raw);
    }
  });

  const names: Array<{ raw: string; name: string }> = [
    { raw: "Example.COM", name: "example.com" },
    { raw: "example.com.", name: "example.com" },
    { raw: "localhost", name: "localhost" },
    { raw: "under_score.example", name: "under_score.example" },
    { raw: "1e5", name: "1e5" },
    { raw: "0x1g.example", name: "0x1g.example" },
    { raw: "xn--bcher-kva.example", name: "xn--bcher-kva.example" },
  ];
  for (const { raw, name } of names) {
    it(`${raw} is the name ${name}`, () => {
      assert.deepEqual(parseHost(raw), { kind: "name", name });
    });
  }

  const invalid = [
    "",
    ".",
    "256.1.1.1",
    "1.2.3.4.5",
    "08.0.0.1",
    "4294967296",
    "1.2.3.256",
    "example.123",
    "[::1",
    "[127.0.0.1]",
    "[fe80::1%25eth0]",
    "fe80::1%eth0",
    "exa mple.com",
    "ex%61mple.com",
    "a..b",
    "-leading.example",
    "trailing-.example",
    "bücher.example",
    "example.com..",
    "1:2:3:4:5:6:7:8:9",
    "1::2::3",
    "[1:2:3:4:5:6:7::8]",
    "[::ffff:1.2.3]",
    "[::ffff:01.2.3.4]",
  ];
  for (const raw of invalid) {
    it(`${JSON.stringify(raw)} is refused as invalid`, () => {
      assert.equal(parseHost(raw).kind, "invalid");
    });
  }

  it("formats IPv6 as RFC 5952, like the WHATWG URL parser", () => {
    for (const text of [
      "1:0:0:2:0:0:0:3",
      "2001:db8:0:0:0:0:2:1",
      "0:0:0:0:0:0:0:0",
      "1:2:3:4:5:6:7:8",
      "fe80:0:0:0:0:0:0:1",
      "1:0:2:0:3:0:4:0",
      "::ffff:1.2.3.4",
    ]) {
      const bytes = parseIPv6Bytes(text);
      assert.ok(bytes, text);
      assert.equal(formatIPv6(bytes), new URL(`http://[${text}]/`).hostname.slice(1, -1), text);
      assert.equal(net.isIPv6(formatIPv6(bytes)), true);
    }
  });
});

describe("addresses are classified: refused ranges and their embeddings", () => {
  const refused: Array<{ address: string; category: string }> = [
    { address: "127.0.0.1", category: "loopback" },
    { address: "127.255.255.254", category: "loopback" },
    { address: "10.0.0.1", category: "private" },
    { address: "10.255.255.255", category: "private" },
    { address: "172.16.0.1", category: "private" },
    { address: "172.31.255.255", category: "private" },
    { address: "192.168.0.1", category: "private" },
    { address: "169.254.169.254", category: "link-local" },
    { address: "169.254.0.1", category: "link-local" },
    { address: "100.64.0.1", category: "cgnat" },
    { address: "100.127.255.255", category: "cgnat" },
    { address: "224.0.0.1", category: "multicast" },
    { address: "239.255.255.250", category: "multicast" },
    { address: "0.0.0.0", category: "unspecified" },
    { address: "0.1.2.3", category: "unspecified" },
    { address: "255.255.255.255", category: "broadcast" },
    { address: "240.0.0.1", category: "reserved" },
    { address: "192.0.0.1", category: "reserved" },
    { address: "192.0.2.1", category: "reserved" },
    { address: "198.18.0.1", category: "reserved" },
    { address: "198.51.100.1", category: "reserved" },
    { address: "203.0.113.1", category: "reserved" },
    { address: "::1", category: "loopback" },
    { address: "::", category: "unspecified" },
    { address: "fc00::1", category: "private" },
    { address: "fd12:3456::1", category: "private" },
    { address: "fec0::1", category: "private" },
    { address: "fe80::1", category: "link-local" },
    { address: "febf::1", category: "link-local" },
    { address: "ff02::1", category: "multicast" },
    { address: "ff0e::1", category: "multicast" },
    { address: "::ffff:127.0.0.1", category: "loopback" },
    { address: "::ffff:7f00:1", category: "loopback" },
    { address: "::ffff:10.0.0.1", category: "private" },
    { address: "::ffff:169.254.169.254", category: "link-local" },
    { address: "::ffff:0.0.0.0", category: "unspecified" },
    { address: "::127.0.0.1", category: "loopback" },
    { address: "::2", category: "unspecified" },
    { address: "::ffff:0:127.0.0.1", category: "loopback" },
    { address: "64:ff9b::7f00:1", category: "loopback" },
    { address: "64:ff9b::a9fe:a9fe", category: "link-local" },
    { address: "64:ff9b::c0a8:101", category: "private" },
    { address: "64:ff9b:1::1", category: "private" },
    { address: "64:ff9b:1:ffff::808:808", category: "private" },
    { address: "2002:7f00:1::1", category: "loopback" },
    { address: "2002:c0a8:101::1", category: "private" },
    { address: "2002:a9fe:a9fe::", category: "link-local" },
    { address: "2001:0:7f00:1::1", category: "loopback" },
    { address: "2001:0:808:808::80ff:fefe", category: "loopback" },
    { address: "2001:0:808:808::f5ff:fffe", category: "private" },
    { address: "2001:db8::1", category: "reserved" },
    { address: "100::1", category: "reserved" },
    { address: "4000::1", category: "reserved" },
    { address: "::ffff:1:1:1", category: "reserved" },
  ];
  for (const { address, category } of refused) {
    it(`${address} is refused as ${category}`, () => {
      assert.deepEqual(classifyAddress(address), { allowed: false, category });
    });
  }

  const allowed = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "9.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.0",
    "169.253.255.255",
    "169.255.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.167.255.255",
    "192.169.0.0",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "2a00:1450:4001::1",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
    "2001:0:808:808::f7f7:f7f7",
  ];
  for (const address of allowed) {
    it(`${address} is allowed`, () => {
      assert.deepEqual(classifyAddress(address), { allowed: true });
    });
  }

  it("refuses text that is not an address", () => {
    assert.equal(classifyAddress("example.com").allowed, false);
  });
});

describe("loopback names", () => {
  const table: Array<{ name: string; loopback: boolean }> = [
    { name: "localhost", loopback: true },
    { name: "LOCALHOST.", loopback: true },
    { name: "api.localhost", loopback: true },
    { name: "localhost.localdomain", loopback: true },
    { name: "ip6-localhost", loopback: true },
    { name: "ip6-loopback", loopback: true },
    { name: "localhost.example.com", loopback: false },
    { name: "mylocalhost", loopback: false },
    { name: "example.com", loopback: false },
  ];
  for (const { name, loopback } of table) {
    it(`${name} ${loopback ? "is" : "is not"} a loopback name`, () => assert.equal(isLoopbackName(name), loopback));
  }
});

describe("the guard's own addresses", () => {
  it("refuses the machine's addresses as self, in any spelling", () => {
    const guard = new AddressGuard(["93.184.216.34", "2606:4700::1"]);
    assert.deepEqual(guard.check("93.184.216.34"), { allowed: false, category: "self" });
    assert.deepEqual(guard.check("2606:4700:0:0:0:0:0:1"), { allowed: false, category: "self" });
    assert.deepEqual(guard.check("8.8.8.8"), { allowed: true });
    assert.deepEqual(guard.check("127.0.0.1"), { allowed: false, category: "loopback" });
  });
});
