import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withoutBasePath } from "../../server/http/base-path.js";

describe("base-path prefixes", () => {
  const cases: Array<[string, string]> = [
    ["/v1/interactions", "/v1/interactions"],
    ["/gw/v1/interactions/int_1?stream=false", "/v1/interactions/int_1?stream=false"],
    ["/a/b/v1beta/environments", "/v1beta/environments"],
    [
      "/gw/upload/v1/environments/env_1/files/workspace/a.txt?overwrite=true",
      "/upload/v1/environments/env_1/files/workspace/a.txt?overwrite=true",
    ],
    ["/upload/v1/environments/env_1/files/x", "/upload/v1/environments/env_1/files/x"],
    ["/v1/environments/env_1/files/workspace/v2/notes", "/v1/environments/env_1/files/workspace/v2/notes"],
    ["/emulator/interactions/int_1/hooks", "/emulator/interactions/int_1/hooks"],
    ["/health", "/health"],
  ];
  for (const [url, expected] of cases) {
    it(`routes ${url} as ${expected}`, () => assert.equal(withoutBasePath(url), expected));
  }
});
