// The official Python SDK (google-genai, in the scratch venv of test/support/python-venv.ts) against an
// emulator in this process with fake sandboxes (issue 30): for our error answers it raises its typed
// errors, having parsed the body as the operation's own error (NotFoundError caused by
// GetInteractionByIDClientError, …), never its generic "did not match expected schema" fallback that
// dumps the body; and its event-stream iteration ends at `data: [DONE]` after interaction.completed.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { projectRoot } from "../../server/common/paths.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { run, scratchVenv } from "../support/python-venv.js";

/** Each call's outcome as one JSON line: its HTTP status and the chain of exceptions, outermost first. */
const SCRIPT = `
import json, sys
from google import genai
client = genai.Client(api_key="python-errors-key", http_options={"base_url": sys.argv[1]})
def outcome(call):
    try:
        call()
        return {"raised": []}
    except Exception as error:
        chain, cause = [], error
        while cause is not None:
            chain.append({"class": type(cause).__name__, "text": str(cause)})
            cause = cause.__cause__
        return {"status": getattr(error, "status_code", None), "raised": chain}
calls = {
    "get": lambda: client.interactions.get(id="int_nope"),
    "create": lambda: client.interactions.create(
        agent="antigravity-preview-05-2026", input='\`\`\`tool_calls\\n[{"name": "rm_file", "args": {}}]\\n\`\`\`'),
    "cancel": lambda: client.interactions.cancel(id="int_nope"),
}
for name, call in calls.items():
    print(json.dumps({"call": name, **outcome(call)}))
events = [event.event_type for event in client.interactions.create(
    agent="antigravity-preview-05-2026", input="Run \`ls\`", stream=True)]
print(json.dumps({"call": "stream", "events": events}))
`;

let emulator: FakeRuntimeEmulator;
before(async () => {
  emulator = await startFakeRuntimeEmulator();
});
after(() => emulator?.close());

describe("the official Python SDK and the emulator's answers", () => {
  it("raises its typed errors for our error bodies and ends a stream's iteration at the sentinel", async (t) => {
    const python = await scratchVenv(t);
    if (python === null) return;
    const result = await run([python, "-c", SCRIPT, emulator.url], { cwd: projectRoot, limitSeconds: 300, show: /^Traceback/ });
    assert.equal(result.status, 0, result.output);
    const outcomes = new Map(
      result.output
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map(
          (line) =>
            JSON.parse(line) as { call: string; status?: number; raised?: Array<{ class: string; text: string }>; events?: string[] },
        )
        .map((outcome) => [outcome.call, outcome]),
    );
    for (const [call, status, outer, typed] of [
      ["get", 404, "NotFoundError", "GetInteractionByIDClientError"],
      ["create", 400, "BadRequestError", "CreateInteractionClientError"],
      ["cancel", 404, "NotFoundError", "CancelInteractionByIDClientError"],
    ] as const) {
      const outcome = outcomes.get(call);
      assert.ok(outcome, result.output);
      assert.equal(outcome.status, status, call);
      assert.deepEqual(
        outcome.raised?.map((raised) => raised.class),
        [outer, typed],
        `${call}: ${JSON.stringify(outcome.raised)}`,
      );
      assert.doesNotMatch(JSON.stringify(outcome.raised), /did not match expected schema/);
    }
    assert.match(outcomes.get("get")?.raised?.[1]?.text ?? "", /^Interaction int_nope not found\.$/);
    const events = outcomes.get("stream")?.events ?? [];
    assert.equal(events.at(-1), "interaction.completed", JSON.stringify(events));
  });
});
