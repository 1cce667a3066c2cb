// The code examples of the documentation's Managed Agents quickstart (ai.google.dev/gemini-api/docs/
// managed-agents-quickstart, the revision of 2026-08-19), run as a new user would: the JavaScript example
// through the official SDK, the REST example as the same HTTP request, the Python example as the body
// the Python SDK sends (the same JSON). Our own code throughout; the emulator is the one `npm start`
// wires, with in-memory sandboxes. The saved agent's GitHub source comes from a stand-in repository on
// this machine (EMULATOR_REPO_MAP): nothing leaves the machine.
//
// Each `// doc-example:` line names the example (page#section: what) that docs/coverage.md lists.
// covers: interactions.create, agents.create

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { readTar } from "../support/archives.js";
import { docClient, drain, sseEvents, startWithStandInRepositories, type DocClient, type Json } from "../support/doc-example-client.js";
import type { FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "doc-examples-quickstart-key";
const AGENT = "antigravity-preview-05-2026";
const FIBONACCI =
  "Write a Python script that generates the first 20 Fibonacci numbers and saves them to fibonacci.txt. Then read the file and print its contents.";
const asText = (text: string) => [{ type: "text", text }];

let emulator: FakeRuntimeEmulator;
let doc: DocClient;
let close: () => Promise<void>;

before(async () => {
  ({ emulator, close } = await startWithStandInRepositories("doc-examples-quickstart", {
    "https://github.com/your-org/skills": { "chart/SKILL.md": "---\nname: chart\n---\n# Chart\n" },
  }));
  doc = docClient(emulator.url, KEY);
});
after(async () => {
  await close?.();
});

describe("managed-agents-quickstart", () => {
  let first: Json;

  it("runs the first agent interaction in a fresh remote environment", async () => {
    // doc-example: managed-agents-quickstart#run-your-first-agent-interaction: Fibonacci in a remote environment (python, javascript, rest)
    first = await doc.create({ agent: AGENT, input: FIBONACCI, environment: "remote" });
    const byRest = await doc.createByRest({ agent: AGENT, input: asText(FIBONACCI), environment: { type: "remote" } });
    for (const interaction of [first, byRest]) {
      assert.ok(interaction.id);
      assert.match(interaction.environment_id ?? "", /^env_/);
      assert.ok(Array.isArray(interaction.steps), "interaction.steps lists what the agent did");
    }
    // output_text is the SDK's (its type says "added by the SDK"): the last model_output's text.
    assert.equal(first.output_text, first.steps.at(-1).content[0].text);
  });

  it("continues the conversation in the same environment", async () => {
    // doc-example: managed-agents-quickstart#continue-the-conversation-multi-turn: previous_interaction_id and the environment ID (python, javascript, rest)
    emulator.runtime.channels.get(first.environment_id)!.files.set("/workspace/fibonacci.txt", "0\n1\n1\n");
    const input = "Now plot the Fibonacci sequence as a line chart and save it as chart.png.";
    const second = await doc.create({ agent: AGENT, previous_interaction_id: first.id, environment: first.environment_id, input });
    const byRest = await doc.createByRest({
      agent: AGENT,
      previous_interaction_id: second.id,
      environment: first.environment_id,
      input: asText(input),
    });
    for (const turn of [second, byRest]) {
      assert.equal(turn.environment_id, first.environment_id);
    }
    assert.equal(
      emulator.runtime.channels.get(first.environment_id)!.files.get("/workspace/fibonacci.txt"),
      "0\n1\n1\n",
      "turn 1's files are kept",
    );
  });

  it("streams the response, step.stop events carrying usage", async () => {
    // doc-example: managed-agents-quickstart#stream-the-response: stream true over a remote environment (python, javascript, rest)
    const input = "Read Hacker News, summarize the top 5 stories, and save the results as a PDF.";
    const events = await drain(await doc.client.interactions.create({ agent: AGENT, input, environment: "remote", stream: true } as never));
    assert.equal(events[0]?.event_type, "interaction.created");
    assert.equal(events.at(-1)?.event_type, "interaction.completed");
    assert.ok(events.some((event) => event.event_type === "step.stop"));
    for (const event of events.filter((one) => one.event_type === "step.stop" && one.usage)) {
      assert.equal(typeof event.usage.total_tokens, "number", JSON.stringify(event));
    }
    const byRest = await doc.rest("POST", "/v1beta/interactions", { agent: AGENT, input, environment: "remote", stream: true });
    assert.equal(byRest.status, 200);
    const wire = sseEvents(byRest.text);
    assert.equal(wire.at(-1)?.data, "[DONE]", "the stream ends with data: [DONE]");
    assert.equal(JSON.parse(wire.at(-2)!.data).event_type, "interaction.completed");
  });

  it("downloads the environment's files as a tar from files/environment-{id}:download", async () => {
    // doc-example: managed-agents-quickstart#download-files-from-the-environment: GET files/environment-{id}:download?alt=media, a tar (python, javascript, rest)
    const envId = first.environment_id as string;
    emulator.runtime.channels.get(envId)!.files.set("/workspace/fibonacci.txt", "0\n1\n1\n2\n");
    const response = await fetch(`${emulator.url}/v1beta/files/environment-${envId}:download?alt=media`, {
      headers: { "x-goog-api-key": KEY },
      redirect: "follow",
    });
    assert.ok(response.ok, response.statusText);
    const entries = await readTar(Buffer.from(await response.arrayBuffer()));
    const name = [...entries.keys()].find((entry) => entry.endsWith("fibonacci.txt"));
    assert.ok(name, [...entries.keys()].join(", "));
    assert.equal(entries.get(name)?.content, "0\n1\n1\n2\n");
  });

  it("saves a managed agent from sources and calls it by ID", async () => {
    // doc-example: managed-agents-quickstart#save-a-managed-agent: agents.create with an inline AGENTS.md and a repository of skills (python, javascript, rest)
    const definition = {
      id: "fibonacci-analyst",
      base_agent: AGENT,
      agent_config: { type: "antigravity", model: "gemini-3.7-flash" },
      system_instruction: "You are a math analysis agent. Generate sequences, visualize them, and export results as PDF reports.",
      base_environment: {
        type: "remote",
        sources: [
          { type: "inline", target: ".agents/AGENTS.md", content: "Always include a chart and a summary table in your reports." },
          { type: "repository", source: "https://github.com/your-org/skills", target: ".agents/skills" },
        ],
      },
    };
    const agent = (await doc.client.agents.create(definition as never)) as Json;
    assert.equal(agent.id, "fibonacci-analyst");
    const byRest = await doc.rest("POST", "/v1beta/agents", { ...definition, id: "fibonacci-analyst-rest" });
    assert.equal(byRest.status, 200, byRest.text);

    // doc-example: managed-agents-quickstart#call-the-managed-agent: interactions.create with the agent's ID (python, javascript, rest)
    const input = "Generate the first 50 prime numbers, plot their distribution, and save a PDF report.";
    const result = await doc.create({ agent: "fibonacci-analyst", input, environment: "remote" });
    const files = emulator.runtime.channels.get(result.environment_id)!.files;
    assert.ok(
      [...files.keys()].some((name) => name.endsWith("/.agents/skills/chart/SKILL.md")),
      [...files.keys()].join(", "),
    );
    assert.ok([...files.keys()].some((name) => name.endsWith("/.agents/AGENTS.md")));
    await doc.createByRest({ agent: "fibonacci-analyst-rest", environment: "remote", input });
  });
});
