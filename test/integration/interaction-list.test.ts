// GET /emulator/interactions (the key's interactions, newest first, as summaries, filtered and paged) and
// its live feed (?stream=true), which the dashboard's list is made of: owner-scoped exactly like the API,
// a running interaction seen as it is now, and the feed's summaries equal to what the list says once the
// run is stored (the list counts hook decisions in SQL, the feed in memory: they must agree). The
// emulator runs as `npm start` wires it, with fake sandboxes whose commands the test answers.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CommandRequest } from "../../server/sandbox/runtime.js";
import { codeOf } from "../support/fake-sandbox-channel.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "list-owner-key";
const OTHER_KEY = "list-other-key";
const AGENT = "antigravity-preview-05-2026";

let emulator: FakeRuntimeEmulator;

before(async () => {
  emulator = await startFakeRuntimeEmulator();
});
after(async () => {
  await emulator?.close();
});

async function call(method: string, path: string, body?: unknown, key = KEY): Promise<{ status: number; json: any }> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { "x-goog-api-key": key, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: await response.json() };
}

const script = (calls: unknown[]) => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

/** An environment whose sandbox runs each command through `answer`; hooks.json as given. */
async function environmentWith(
  answer: (request: CommandRequest) => Promise<{ stdout?: string; stderr?: string; exitCode?: number }>,
  hooks?: object,
) {
  const { status, json } = await call("POST", "/v1beta/environments", {
    sources: hooks ? [{ type: "inline", target: ".agents/hooks.json", content: JSON.stringify(hooks) }] : [],
  });
  assert.equal(status, 200, JSON.stringify(json));
  const channel = emulator.runtime.channels.get(json.id);
  assert.ok(channel, "no fake sandbox for the environment");
  channel.onRun = answer;
  return json.id as string;
}

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

interface FeedReader {
  events: any[];
  /** Resolves with the first event (already received or to come) that `test` accepts. */
  next(test: (event: any) => boolean, what: string): Promise<any>;
  close(): void;
}

/** Opens the live feed; resolves once the server answered (from then on nothing is missed). */
async function openFeed(key: string): Promise<FeedReader> {
  const controller = new AbortController();
  const response = await fetch(`${emulator.url}/emulator/interactions?stream=true`, {
    headers: { "x-goog-api-key": key },
    signal: controller.signal,
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
  const events: any[] = [];
  const waiters: Array<() => void> = [];
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (data) events.push(JSON.parse(data));
          for (const wake of waiters.splice(0)) wake();
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    events,
    next: async (test, what) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = events.find(test);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`the feed never carried ${what}; it carried ${JSON.stringify(events)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => controller.abort(),
  };
}

describe("GET /emulator/interactions: the list", () => {
  const ids: string[] = [];
  let environmentId: string;

  before(async () => {
    environmentId = await environmentWith(async () => ({ stdout: "ok\n" }));
    for (const [index, text] of ["first: Run `echo one`", "second: Run `echo two`", "third: what is 2+2?"].entries()) {
      const { status, json } = await call("POST", "/v1beta/interactions", {
        ...(index === 2 ? { model: "gemini-3-flash-preview" } : { agent: AGENT }),
        input: text,
        ...(index < 2 ? { environment: environmentId } : {}),
      });
      assert.equal(status, 200, JSON.stringify(json));
      ids.push(json.id);
    }
  });

  it("lists the key's interactions newest first, as summaries", async () => {
    const { status, json } = await call("GET", "/emulator/interactions");
    assert.equal(status, 200);
    assert.deepEqual(
      json.interactions.map((item: any) => item.id),
      [...ids].reverse(),
    );
    const [third, , first] = json.interactions;
    assert.equal(first.status, "completed");
    assert.equal(first.agent, AGENT);
    assert.equal(first.model, null);
    assert.equal(first.environment_id, environmentId);
    assert.equal(first.input_preview, "first: Run `echo one`");
    assert.equal(first.tool_calls, 1);
    assert.equal(first.denied_calls, 0);
    assert.equal(first.failed_open_hooks, 0);
    assert.ok(first.total_tokens > 0);
    assert.equal(third.model, "gemini-3-flash-preview");
    assert.equal(third.agent, null);
    assert.equal(third.environment_id, null);
    assert.equal(json.next_page_token, "");
  });

  it("pages with page_size and next_page_token", async () => {
    const seen: string[] = [];
    let token = "";
    do {
      const { status, json } = await call("GET", `/emulator/interactions?page_size=1${token ? `&page_token=${token}` : ""}`);
      assert.equal(status, 200);
      assert.equal(json.interactions.length, 1);
      seen.push(json.interactions[0].id);
      token = json.next_page_token;
    } while (token);
    assert.deepEqual(seen, [...ids].reverse());
  });

  it("filters by status, agent or model, and environment", async () => {
    const byEnvironment = await call("GET", `/emulator/interactions?environment_id=${environmentId}`);
    assert.deepEqual(
      byEnvironment.json.interactions.map((item: any) => item.id),
      [ids[1], ids[0]],
    );
    const byModel = await call("GET", "/emulator/interactions?agent=gemini-3-flash-preview");
    assert.deepEqual(
      byModel.json.interactions.map((item: any) => item.id),
      [ids[2]],
    );
    const byAgent = await call("GET", `/emulator/interactions?agent=${AGENT}&status=completed`);
    assert.deepEqual(
      byAgent.json.interactions.map((item: any) => item.id),
      [ids[1], ids[0]],
    );
    const none = await call("GET", "/emulator/interactions?status=failed");
    assert.deepEqual(none.json.interactions, []);
  });

  it("shows another key none of them", async () => {
    const { status, json } = await call("GET", "/emulator/interactions", undefined, OTHER_KEY);
    assert.equal(status, 200);
    assert.deepEqual(json.interactions, []);
    const filtered = await call("GET", `/emulator/interactions?environment_id=${environmentId}`, undefined, OTHER_KEY);
    assert.deepEqual(filtered.json.interactions, []);
  });

  it("refuses what it cannot read, saying what to send", async () => {
    const status = await call("GET", "/emulator/interactions?status=done");
    assert.equal(status.status, 400);
    assert.match(
      status.json.error.message,
      /status.*queued, in_progress, requires_action, requires_continuation, completed, incomplete, failed, cancelled/,
    );
    const token = await call("GET", "/emulator/interactions?page_token=bogus");
    assert.equal(token.status, 400);
    assert.match(token.json.error.message, /page_token/);
    const noKey = await fetch(`${emulator.url}/emulator/interactions`);
    assert.equal(noKey.status, 401);
  });
});

describe("GET /emulator/interactions?stream=true: the live feed", () => {
  it("carries an interaction as it is created, runs and ends; only to its own key", async () => {
    const release = gate();
    const ran = gate();
    const environmentId = await environmentWith(async (request) => {
      if (codeOf(request) === "wait here") {
        ran.open();
        await release.opened;
        return { stdout: "released\n" };
      }
      return {};
    });
    const mine = await openFeed(KEY);
    const theirs = await openFeed(OTHER_KEY);
    try {
      const { json: created } = await call("POST", "/v1beta/interactions", {
        agent: AGENT,
        input: script([{ name: "code_execution", args: { code: "wait here" } }]),
        environment: environmentId,
        background: true,
      });
      const id = created.id as string;
      const running = await mine.next((event) => event.interaction?.id === id, "the new interaction");
      assert.equal(running.event_type, "interaction.summary");
      assert.equal(running.interaction.status, "in_progress");
      assert.match(running.interaction.input_preview, /^```tool_calls/);
      await ran.opened;
      // While it runs, the list shows it as it is now.
      const listed = await call("GET", "/emulator/interactions?status=in_progress");
      assert.deepEqual(
        listed.json.interactions.map((item: any) => item.id),
        [id],
      );
      assert.equal(listed.json.interactions[0].tool_calls, 1);
      release.open();
      const done = await mine.next((event) => event.interaction?.id === id && event.interaction.status === "completed", "its completion");
      assert.equal(done.interaction.tool_calls, 1);
      // The other key's feed got nothing of it (its feed is open and would have carried it by now).
      await call("DELETE", `/v1beta/interactions/${id}`);
      const deleted = await mine.next((event) => event.event_type === "interaction.deleted", "the deletion");
      assert.equal(deleted.interaction_id, id);
      assert.deepEqual(theirs.events, []);
    } finally {
      release.open();
      mine.close();
      theirs.close();
    }
  });

  it("counts denied calls and failed-open hooks the same live and stored", async () => {
    const hooks = {
      "flaky-audit": { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "audit" }] }] },
      "no-rm": { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "gate" }] }] },
    };
    const environmentId = await environmentWith(async (request) => {
      const code = codeOf(request);
      if (code === "audit") return { stderr: "audit service down\n", exitCode: 3 };
      if (code === "gate") {
        const payload = String(request.stdin ?? "");
        return { stdout: payload.includes("rm -rf") ? '{"decision": "deny", "reason": "no rm -rf"}' : '{"decision": "allow"}' };
      }
      return { stdout: "ran\n" };
    }, hooks);
    const mine = await openFeed(KEY);
    try {
      const { json: created } = await call("POST", "/v1beta/interactions", {
        agent: AGENT,
        input: script([
          { name: "code_execution", args: { code: "ls" } },
          { name: "code_execution", args: { code: "rm -rf /workspace/x" } },
        ]),
        environment: environmentId,
      });
      assert.equal(created.status, "completed");
      const live = await mine.next(
        (event) => event.interaction?.id === created.id && event.interaction.status === "completed",
        "the completed interaction",
      );
      assert.equal(live.interaction.tool_calls, 2);
      assert.equal(live.interaction.denied_calls, 1);
      assert.equal(live.interaction.failed_open_hooks, 2);
      const { json } = await call("GET", `/emulator/interactions?environment_id=${environmentId}`);
      assert.deepEqual(json.interactions, [live.interaction]);
    } finally {
      mine.close();
    }
  });
});
