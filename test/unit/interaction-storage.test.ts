// How much of a large request is stored (issue 9, defect 8): an interaction's steps are stored once,
// as its events, the interaction snapshots of interaction.created and interaction.completed are rebuilt
// from the record rather than stored, and the hook trace keeps only a preview of long arguments. What
// GET and a replayed stream return is unchanged.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Db } from "../../server/store/database.js";
import type { CreateInteractionRequest } from "../../server/api/create-interaction.js";
import type { InteractionService } from "../../server/interactions/interaction-service.js";
import type { InteractionRecord } from "../../server/interactions/interaction-store.js";
import { renderCompletedSnapshot } from "../../server/interactions/interaction-view.js";
import type { StreamEvent } from "../../server/interactions/events.js";
import { foldEvents } from "../../server/interactions/step-accumulator.js";
import type { ToolCallHooks } from "../../server/agent/guarded-call.js";
import { serviceWithFakeSandbox } from "../support/fake-interaction-service.js";
import { readFeed } from "../support/read-feed.js";

const OWNER = "owner-storage-test";
const AGENT = "antigravity-preview-05-2026";
const MiB = 1024 * 1024;

async function create(service: InteractionService, request: Partial<CreateInteractionRequest>): Promise<InteractionRecord> {
  const run = await service.create(OWNER, { agent: AGENT, ...request } as CreateInteractionRequest);
  return run.done;
}

/** Every byte of the interaction's rows: events, steps, hook traces, the echo and the planner state. */
function storedBytes(db: Db, id: string): number {
  const sum = (sql: string) => (db.prepare(sql).get(id) as { bytes: number | null }).bytes ?? 0;
  return (
    sum("SELECT SUM(LENGTH(event)) AS bytes FROM interaction_events WHERE interaction_id = ?") +
    sum("SELECT SUM(LENGTH(step)) AS bytes FROM steps WHERE interaction_id = ?") +
    sum("SELECT SUM(LENGTH(trace)) AS bytes FROM hook_traces WHERE interaction_id = ?") +
    sum("SELECT LENGTH(echo) + COALESCE(LENGTH(planner_state), 0) AS bytes FROM interactions WHERE id = ?")
  );
}

async function replay(service: InteractionService, id: string): Promise<StreamEvent[]> {
  return (await readFeed(service.openEvents(id, OWNER, undefined))).events;
}

describe("storing a large interaction", () => {
  it("keeps a 4 MiB input once: GET returns all of it, the replayed stream the output after it", async () => {
    const { service, db } = serviceWithFakeSandbox(OWNER);
    const input = `Hello. ${"lorem ipsum ".repeat((4 * MiB) / 12)}`;
    const record = await create(service, { input, system_instruction: "be brief" });
    assert.equal(record.status, "completed");

    const stored = storedBytes(db, record.id);
    assert.ok(stored < input.length * 1.05, `stored ${stored} bytes for an input of ${input.length}`);
    assert.deepEqual(db.prepare("SELECT COUNT(*) AS n FROM steps").get(), { n: 0 }, "steps are not written beside their events");

    const fetched = service.get(record.id, OWNER);
    assert.deepEqual(fetched.steps, record.steps);
    assert.deepEqual(fetched.steps[0], { type: "user_input", content: [{ type: "text", text: input }] });

    const events = await replay(service, record.id);
    // The documented stream leaves the input's steps out, and numbers the output's from 0.
    assert.deepEqual(foldEvents(events).steps, record.steps.slice(1));
    const first = events[0];
    assert.equal(first?.event_type, "interaction.created");
    assert.deepEqual(first.event_type === "interaction.created" && first.interaction, {
      id: record.id,
      object: "interaction",
      status: "in_progress",
      created: record.created,
      updated: record.created,
      agent: AGENT,
      system_instruction: "be brief",
    });
    assert.deepEqual(events.at(-1), {
      event_type: "interaction.completed",
      // Two more were stored: the input's step.start and step.stop.
      event_id: `evt_${events.length + 2}`,
      interaction: renderCompletedSnapshot(fetched),
    });
  });

  it("keeps a 2 MiB write_file script as the input and the call's arguments, and only a preview in the hook trace", async () => {
    const { service, db, channel } = serviceWithFakeSandbox(OWNER);
    const content = "é".repeat(MiB); // 2 MiB in UTF-8
    const input = `\`\`\`tool_calls\n${JSON.stringify([{ name: "write_file", args: { path: "/workspace/big.txt", content } }])}\n\`\`\``;
    const record = await create(service, { input });
    assert.equal(record.status, "completed");
    assert.equal(channel.files.get("/workspace/big.txt"), content);

    // Twice: once as the user's input, once as the function_call step's arguments (both are what GET returns).
    const stored = storedBytes(db, record.id);
    assert.ok(stored < input.length * 2.05, `stored ${stored} bytes for an input of ${input.length}`);

    const call = service.get(record.id, OWNER).steps[1];
    assert.ok(call?.type === "function_call");
    assert.equal(call.arguments.content, content, "the step keeps the whole argument");

    const traces = service.get(record.id, OWNER).hookTraces as ToolCallHooks[];
    const traced = traces[0]?.tool_call;
    assert.equal(traced?.name, "write_file");
    assert.equal(traced?.args.path, "/workspace/big.txt");
    assert.deepEqual(traced?.truncated, { content: Buffer.byteLength(content) });
    const preview = String(traced?.args.content);
    assert.ok(preview.endsWith("…") && Buffer.byteLength(preview) <= 2048 + 3, `preview of ${Buffer.byteLength(preview)} bytes`);
    assert.ok(content.startsWith(preview.slice(0, -1)));
  });

  it("keeps short arguments whole in the hook trace, without `truncated`", async () => {
    const { service } = serviceWithFakeSandbox(OWNER);
    const input = `\`\`\`tool_calls\n${JSON.stringify([{ name: "write_file", args: { path: "/workspace/a.txt", content: "x".repeat(2048) } }])}\n\`\`\``;
    const record = await create(service, { input });
    const traced = (service.get(record.id, OWNER).hookTraces as ToolCallHooks[])[0]?.tool_call;
    assert.deepEqual(traced, { name: "write_file", args: { path: "/workspace/a.txt", content: "x".repeat(2048) } });
  });
});
