import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { prepareDownstreamHeaders, prepareUpstreamHeaders } from "../../proxy/headers.js";

describe("upstream request headers", () => {
  it("removes hop-by-hop headers, the ones Connection names, and proxy headers", () => {
    const { headers } = prepareUpstreamHeaders(
      {
        host: "spoofed.example",
        connection: "keep-alive, x-hop, content-length",
        "keep-alive": "timeout=5",
        "x-hop": "1",
        te: "trailers",
        trailer: "x",
        upgrade: "websocket",
        expect: "100-continue",
        "proxy-authorization": "Basic c2VjcmV0",
        "proxy-connection": "keep-alive",
        "content-length": "5",
        accept: "*/*",
      },
      "api.example",
      {},
    );
    assert.deepEqual(headers, { host: "api.example", "content-length": "5", accept: "*/*" });
  });

  it("injects headers, replacing the sandbox's of the same name whatever the case", () => {
    const { headers, injectedNames } = prepareUpstreamHeaders(
      { authorization: "Bearer sandbox", "x-goog-api-key": "sandbox", accept: "*/*" },
      "api.example:8443",
      { Authorization: "Bearer real", "X-Goog-Api-Key": "real", "X-New": "n" },
    );
    assert.deepEqual(headers, {
      authorization: "Bearer real",
      "x-goog-api-key": "real",
      "x-new": "n",
      accept: "*/*",
      host: "api.example:8443",
    });
    assert.deepEqual(injectedNames, ["Authorization", "X-Goog-Api-Key", "X-New"]);
  });
});

describe("downstream response headers", () => {
  it("drops the upstream hop's headers and restates Connection for the sandbox's hop", () => {
    const headers = {
      connection: "close, x-upstream-hop",
      "keep-alive": "timeout=1",
      "x-upstream-hop": "1",
      "proxy-authenticate": "Basic",
      "content-type": "text/plain",
    };
    prepareDownstreamHeaders(headers, true);
    assert.deepEqual(headers, { connection: "keep-alive", "content-type": "text/plain" });
    prepareDownstreamHeaders(headers, false);
    assert.equal(headers.connection, "close");
  });
});
