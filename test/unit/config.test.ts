import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../../server/common/config.js";
import { growHeapBy } from "../../server/serve.js";

describe("configuration", () => {
  it("has the documented defaults", () => {
    const config = loadConfig({ HOME: "/home/u" });
    assert.equal(config.PORT, 8080);
    assert.equal(config.HOST, "127.0.0.1");
    assert.equal(config.EMULATOR_DATA_DIR, "/home/u/.local/share/interactions-emulator");
    assert.equal(config.EMULATOR_API_KEYS, null);
    assert.equal(config.EMULATOR_TOOL_TIMEOUT_SECONDS, 300);
    assert.equal(config.EMULATOR_TOOL_OUTPUT_BYTES, 1024 * 1024);
    assert.equal(config.EMULATOR_MAX_SOURCES_BYTES, 32 * 1024 * 1024);
  });

  it("has the documented limits (docs/security.md#limits)", () => {
    const config = loadConfig({ HOME: "/home/u" });
    assert.equal(config.EMULATOR_MAX_BODY_BYTES, 48 * 1024 * 1024);
    // Room for the largest inline sources, base64-encoded.
    assert.ok(config.EMULATOR_MAX_BODY_BYTES > Math.ceil((config.EMULATOR_MAX_SOURCES_BYTES * 4) / 3));
    assert.equal(config.EMULATOR_EGRESS_LOG_ENTRIES, 1000);
    assert.equal(config.EMULATOR_MAX_TOOL_CALLS, 1000);
    assert.equal(config.EMULATOR_MAX_ENVIRONMENTS_PER_KEY, 50);
    assert.equal(config.EMULATOR_MAX_ENVIRONMENTS, 100);
    assert.equal(config.EMULATOR_SANDBOX_DISK_MB, 10240);
    assert.throws(() => loadConfig({ EMULATOR_MAX_ENVIRONMENTS: "0" }), /EMULATOR_MAX_ENVIRONMENTS/);
  });

  it("bounds the test clock and trigger catch-up (docs/clock.md#bounds)", () => {
    const config = loadConfig({ HOME: "/home/u" });
    assert.equal(config.EMULATOR_CLOCK_MAX_OFFSET_DAYS, 36_525);
    assert.equal(config.EMULATOR_CLOCK_MAX_KEYS, 10_000);
    assert.equal(config.EMULATOR_CLOCK_MAX_RUNS_PER_MOVE, 1000);
    assert.equal(config.EMULATOR_TRIGGER_MAX_CATCH_UP_RUNS, 100);
    assert.equal(config.EMULATOR_TRIGGER_MAX_RUNNING, 1000);
    // A bound that would let a clock pass what a Date holds is refused.
    assert.throws(() => loadConfig({ EMULATOR_CLOCK_MAX_OFFSET_DAYS: "100000000" }), /EMULATOR_CLOCK_MAX_OFFSET_DAYS/);
  });

  it("lets V8's heap grow 150% past what is live before a full collection, 0 for V8's own rule, at most 300", () => {
    assert.equal(loadConfig({ HOME: "/home/u" }).EMULATOR_HEAP_GROWING_PERCENT, 150);
    assert.equal(loadConfig({ EMULATOR_HEAP_GROWING_PERCENT: "0" }).EMULATOR_HEAP_GROWING_PERCENT, 0);
    assert.throws(() => loadConfig({ EMULATOR_HEAP_GROWING_PERCENT: "301" }), /EMULATOR_HEAP_GROWING_PERCENT/);
    assert.throws(() => loadConfig({ EMULATOR_HEAP_GROWING_PERCENT: "-1" }), /EMULATOR_HEAP_GROWING_PERCENT/);
    const set: string[] = [];
    growHeapBy(150, (flags) => set.push(flags));
    growHeapBy(0, (flags) => set.push(flags));
    assert.deepEqual(set, ["--heap-growing-percent=150"], "set once, and not at all for 0");
  });

  it("checkpoints the store's log every 100 ms from a thread, and bounds it at 64 MiB (docs/architecture.md#state)", () => {
    const config = loadConfig({ HOME: "/home/u" });
    assert.equal(config.EMULATOR_STORE_CHECKPOINT_MS, 100);
    assert.equal(config.EMULATOR_STORE_WAL_MAX_MB, 64);
    // Past a timer's range Node.js would fire every 1 ms; past 2^31 pages SQLite cannot hold the limit.
    assert.throws(() => loadConfig({ EMULATOR_STORE_CHECKPOINT_MS: "3000000000" }), /EMULATOR_STORE_CHECKPOINT_MS/);
    assert.throws(() => loadConfig({ EMULATOR_STORE_WAL_MAX_MB: "10000000" }), /EMULATOR_STORE_WAL_MAX_MB/);
    assert.throws(() => loadConfig({ EMULATOR_STORE_WAL_MAX_MB: "0" }), /EMULATOR_STORE_WAL_MAX_MB/);
  });

  it("bounds MCP servers by default and lets them be anywhere unless EMULATOR_MCP_HOSTS names hosts", () => {
    const config = loadConfig({ HOME: "/home/u" });
    assert.equal(config.EMULATOR_MCP_TIMEOUT_SECONDS, 60);
    assert.equal(config.EMULATOR_MCP_RESPONSE_BYTES, 16 * 1024 * 1024);
    assert.equal(config.EMULATOR_MCP_HOSTS, null);
    assert.deepEqual(loadConfig({ HOME: "/home/u", EMULATOR_MCP_HOSTS: " 127.0.0.1, mcp.internal:8443 ,," }).EMULATOR_MCP_HOSTS, [
      "127.0.0.1",
      "mcp.internal:8443",
    ]);
    assert.throws(() => loadConfig({ EMULATOR_MCP_TIMEOUT_SECONDS: "0" }), /EMULATOR_MCP_TIMEOUT_SECONDS/);
  });

  it("splits EMULATOR_API_KEYS on commas and trims them", () => {
    assert.deepEqual(loadConfig({ EMULATOR_API_KEYS: " a, b ,,c" }).EMULATOR_API_KEYS, ["a", "b", "c"]);
  });

  it("derives a distinct instance name from each data folder", () => {
    const one = loadConfig({ EMULATOR_DATA_DIR: "/tmp/one" }).EMULATOR_INSTANCE;
    const two = loadConfig({ EMULATOR_DATA_DIR: "/tmp/two" }).EMULATOR_INSTANCE;
    assert.notEqual(one, two);
    assert.equal(loadConfig({ EMULATOR_DATA_DIR: "/tmp/one" }).EMULATOR_INSTANCE, one);
  });

  it("serves no local folder unless EMULATOR_REPO_ROOTS names absolute folders, and bounds sources and clones", () => {
    const defaults = loadConfig({ HOME: "/home/u" });
    assert.deepEqual(defaults.EMULATOR_REPO_ROOTS, []);
    assert.equal(defaults.EMULATOR_MAX_SOURCES_FILES, 10_000);
    assert.equal(defaults.EMULATOR_REPO_CLONE_TIMEOUT_SECONDS, 120);
    assert.deepEqual(loadConfig({ EMULATOR_REPO_ROOTS: " /srv/a, /srv/b ,," }).EMULATOR_REPO_ROOTS, ["/srv/a", "/srv/b"]);
    assert.throws(
      () => loadConfig({ EMULATOR_REPO_ROOTS: "/srv/a,relative/b" }),
      (error: unknown) =>
        error instanceof ConfigError && /EMULATOR_REPO_ROOTS: "relative\/b" is not an absolute folder/.test(error.message),
    );
  });

  it("reads the agent's model and refuses a model setting that cannot work, saying what to set", () => {
    const scripted = loadConfig({ HOME: "/home/u" });
    assert.equal(scripted.EMULATOR_AGENT_MODEL, "scripted");
    assert.equal(scripted.EMULATOR_MODEL_MODE, "live");
    assert.equal(loadConfig({ EMULATOR_AGENT_MODEL: "openai:qwen3:8b" }).EMULATOR_OPENAI_BASE_URL, "http://127.0.0.1:11434/v1");
    const refused: Array<[Record<string, string>, RegExp]> = [
      [{ EMULATOR_AGENT_MODEL: "llama" }, /EMULATOR_AGENT_MODEL: must be "scripted", "openai:<model>"/],
      [{ EMULATOR_AGENT_MODEL: "gemini:gemini-2.5-flash" }, /set EMULATOR_GEMINI_API_KEY/],
      [{ EMULATOR_AGENT_MODEL: "openai:m", EMULATOR_MODEL_MODE: "replay" }, /EMULATOR_MODEL_MODE=replay needs a cassette file/],
      [{ EMULATOR_MODEL_MODE: "record", EMULATOR_MODEL_CASSETTE: "c.json" }, /EMULATOR_AGENT_MODEL is scripted/],
      [{ EMULATOR_OPENAI_BASE_URL: "ftp://x" }, /EMULATOR_OPENAI_BASE_URL: must be an http\(s\) URL/],
    ];
    for (const [env, message] of refused) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && message.test(error.message),
        JSON.stringify(env),
      );
    }
    // A replay needs no key: it never asks the model.
    assert.equal(
      loadConfig({ EMULATOR_AGENT_MODEL: "gemini:g", EMULATOR_MODEL_MODE: "replay", EMULATOR_MODEL_CASSETTE: "c.json" })
        .EMULATOR_MODEL_MODE,
      "replay",
    );
  });

  it("names every invalid variable", () => {
    assert.throws(
      () => loadConfig({ PORT: "eighty", EMULATOR_SANDBOX_MEMORY_MB: "-1" }),
      (error: unknown) => error instanceof ConfigError && /PORT/.test(error.message) && /EMULATOR_SANDBOX_MEMORY_MB/.test(error.message),
    );
  });
});
