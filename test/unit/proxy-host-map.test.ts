import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HostMapError, parseHostMap } from "../../proxy/host-map.js";

describe("EMULATOR_EGRESS_HOST_MAP parsing", () => {
  const valid: Array<{ text: string | undefined; entries: Array<[string, { host: string; port: number }]> }> = [
    { text: undefined, entries: [] },
    { text: "", entries: [] },
    { text: "api.example.com=127.0.0.1:8443", entries: [["api.example.com", { host: "127.0.0.1", port: 8443 }]] },
    {
      text: " API.Example.com. = 127.0.0.1:80 , b.example=upstream:9000,",
      entries: [
        ["api.example.com", { host: "127.0.0.1", port: 80 }],
        ["b.example", { host: "upstream", port: 9000 }],
      ],
    },
    { text: "v6.example=[::1]:8080", entries: [["v6.example", { host: "::1", port: 8080 }]] },
    { text: "1.2.3.4=localhost:1", entries: [["1.2.3.4", { host: "localhost", port: 1 }]] },
    { text: "a.example=127.1:65535", entries: [["a.example", { host: "127.0.0.1", port: 65535 }]] },
  ];
  for (const { text, entries } of valid) {
    it(`parses ${JSON.stringify(text)}`, () => assert.deepEqual([...parseHostMap(text)], entries));
  }

  const invalid = [
    "api.example.com",
    "api.example.com=127.0.0.1",
    "api.example.com=127.0.0.1:0",
    "api.example.com=127.0.0.1:65536",
    "api.example.com=127.0.0.1:http",
    "=127.0.0.1:80",
    "bad host=127.0.0.1:80",
    "a.example=::1:80",
    "a.example=[::1:80",
  ];
  for (const text of invalid) {
    it(`refuses ${JSON.stringify(text)} with a message naming the pair`, () => {
      assert.throws(
        () => parseHostMap(text),
        (error: unknown) => error instanceof HostMapError && error.message.includes(text.split(",")[0] ?? ""),
      );
    });
  }
});
