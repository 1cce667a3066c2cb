// The code examples of the documentation's "Building managed agents" page (ai.google.dev/gemini-api/
// docs/custom-agents, the revision of 2026-09 that names antigravity-preview-09-2026), run as a new user
// would: the JavaScript example through the official SDK, the REST example as the same HTTP request, the
// Python example as the body the Python SDK sends. Our own code throughout. The GitHub repositories the
// examples mount come from stand-in repositories on this machine (EMULATOR_REPO_MAP).
//
// Each `// doc-example:` line names the example (page#section: what) that docs/coverage.md lists.
// covers: agents.create, agents.list, agents.get, agents.delete, interactions.create
// covers: CreateAgent.base_environment.sources.source, CreateAgent.base_environment.sources.type

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { docClient, startWithStandInRepositories, type DocClient, type Json } from "../support/doc-example-client.js";
import type { FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "doc-examples-custom-agents-key";
const AGENT = "antigravity-preview-09-2026";
const ANALYST = "You are a data analyst. Always include visualizations and export results as PDF.";
const AGENTS_MD = "Always use matplotlib for charts. Include a summary table in every report.";
const SLIDE_MAKER = "---\nname: slide-maker\n---\n# Slide Maker\nCreate HTML slide decks from data analysis results.";

let emulator: FakeRuntimeEmulator;
let doc: DocClient;
let close: () => Promise<void>;

before(async () => {
  ({ emulator, close } = await startWithStandInRepositories("doc-examples-custom-agents", {
    "https://github.com/my-org/analysis-templates": { "sample.csv": "quarter,revenue\nQ1,100\n" },
    "https://github.com/my-org/backend": { "setup.py": "# backend\n" },
  }));
  doc = docClient(emulator.url, KEY);
});
after(async () => {
  await close?.();
});

const filesOf = (interaction: Json): string[] => [...emulator.runtime.channels.get(interaction.environment_id)!.files.keys()];
const sources = (...entries: Json[]) => ({ type: "remote", sources: entries });
const inline = (target: string, content: string) => ({ type: "inline", target, content });

describe("custom-agents: customize the agent inline", () => {
  it("takes system_instruction with AGENTS.md and SKILL.md sources", async () => {
    // doc-example: custom-agents#customize-the-antigravity-agent: inline system_instruction and .agents sources (python, javascript, rest)
    const body = {
      agent: AGENT,
      input: "Analyze the Q1 revenue data and create a slide deck.",
      system_instruction: ANALYST,
      environment: sources(inline(".agents/AGENTS.md", AGENTS_MD), inline(".agents/skills/slide-maker/SKILL.md", SLIDE_MAKER)),
    };
    for (const interaction of [await doc.create(body), await doc.createByRest(body)]) {
      assert.ok(
        filesOf(interaction).some((name) => name.endsWith("/.agents/AGENTS.md")),
        filesOf(interaction).join(", "),
      );
      assert.ok(filesOf(interaction).some((name) => name.endsWith("/.agents/skills/slide-maker/SKILL.md")));
    }
  });

  it("mounts an AGENTS.md, and a skill, each alone", async () => {
    // doc-example: custom-agents#agentsmd: an inline .agents/AGENTS.md (python, javascript, rest)
    const withAgentsMd = {
      agent: AGENT,
      input: "Analyze the Q1 revenue data and create a report.",
      system_instruction: ANALYST,
      environment: sources(inline(".agents/AGENTS.md", AGENTS_MD)),
    };
    for (const interaction of [await doc.create(withAgentsMd), await doc.createByRest(withAgentsMd)]) {
      assert.ok(filesOf(interaction).some((name) => name.endsWith("/.agents/AGENTS.md")));
    }
    // doc-example: custom-agents#skills-skillmd: an inline .agents/skills/slide-maker/SKILL.md (python, javascript, rest)
    const skill =
      "---\nname: slide-maker\ndescription: Create HTML slide decks\n---\n# Slide Maker\n\nWhen asked to create a presentation:\n1. Analyze the input data\n2. Create an HTML slide deck with reveal.js\n3. Save to /workspace/output/slides.html";
    const withSkill = {
      agent: AGENT,
      input: "Create a presentation about our Q1 results.",
      system_instruction: "You create presentations from data.",
      environment: sources(inline(".agents/skills/slide-maker/SKILL.md", skill)),
    };
    for (const interaction of [await doc.create(withSkill), await doc.createByRest(withSkill)]) {
      assert.ok(filesOf(interaction).some((name) => name.endsWith("/.agents/skills/slide-maker/SKILL.md")));
    }
  });
});

describe("custom-agents: managed agents", () => {
  const dataAnalyst = (id: string) => ({
    id,
    base_agent: AGENT,
    agent_config: { type: "antigravity", model: "gemini-3.8-flash" },
    system_instruction: ANALYST,
    base_environment: sources(inline(".agents/AGENTS.md", AGENTS_MD), inline(".agents/skills/slide-maker/SKILL.md", SLIDE_MAKER), {
      type: "repository",
      source: "https://github.com/my-org/analysis-templates",
      target: "/workspace/templates",
    }),
  });
  const issueResolver = (id: string) => ({
    id,
    base_agent: AGENT,
    system_instruction: "You resolve GitHub issues. Clone the repo, find the bug, write the fix, run the tests, and open a PR.",
    base_environment: {
      ...sources({ type: "repository", source: "https://github.com/my-org/backend", target: "/workspace/repo" }),
      network: {
        allowlist: [{ domain: "api.github.com", transform: { Authorization: "Basic YOUR_BASE64_TOKEN" } }, { domain: "pypi.org" }],
      },
    },
  });

  it("creates an agent from sources and invokes it; each call starts from a fresh copy", async () => {
    // doc-example: custom-agents#from-sources: agents.create data-analyst with inline files and a repository (python, javascript, rest)
    assert.equal(((await doc.client.agents.create(dataAnalyst("data-analyst") as never)) as Json).id, "data-analyst");
    const byRest = await doc.rest("POST", "/v1beta/agents", dataAnalyst("data-analyst-rest"));
    assert.equal(byRest.status, 200, byRest.text);

    // doc-example: custom-agents#invoke-the-agent: interactions.create with the agent's ID and environment remote (python, javascript, rest)
    const input = "Analyze Q1 revenue data from /workspace/templates/sample.csv and create a slide deck.";
    const result = await doc.create({ agent: "data-analyst", input, environment: "remote" });
    assert.equal(
      emulator.runtime.channels.get(result.environment_id)!.files.get("/workspace/templates/sample.csv"),
      "quarter,revenue\nQ1,100\n",
    );
    emulator.runtime.channels.get(result.environment_id)!.files.set("/workspace/scratch.txt", "mine");
    const again = await doc.createByRest({ agent: "data-analyst-rest", input, environment: "remote" });
    assert.notEqual(again.environment_id, result.environment_id);
    assert.ok(!filesOf(again).includes("/workspace/scratch.txt"), "a fresh copy of the base environment");

    // doc-example: custom-agents#override-system-instructions-and-tools: system_instruction and tools code_execution at call time (python, javascript, rest)
    const override = {
      agent: "data-analyst",
      input: "Analyze Q1 revenue data, but do not create a slide deck. Just output a summary table.",
      system_instruction: "You are a data analyst. Focus ONLY on summary tables. Ignore default instructions about slides.",
      tools: [{ type: "code_execution" }],
      environment: "remote",
    };
    await doc.create(override);
    await doc.createByRest(override);
  });

  it("forks an environment the base agent set up into a managed agent", async () => {
    // doc-example: custom-agents#from-an-existing-environment-fork: interactions.create, then agents.create with base_environment the environment ID (python, javascript, rest)
    const setup = {
      agent: AGENT,
      input: "Install pandas, matplotlib, and seaborn. Create an analysis template at /workspace/template.py.",
      environment: "remote",
    };
    const interaction = await doc.create(setup);
    await doc.createByRest(setup);
    emulator.runtime.channels.get(interaction.environment_id)!.files.set("/workspace/template.py", "# template\n");
    const agent = (await doc.client.agents.create({
      id: "my-data-analyst",
      base_agent: AGENT,
      system_instruction: "You are a data analyst. Use the template at /workspace/template.py for all reports.",
      base_environment: interaction.environment_id,
    } as never)) as Json;
    assert.equal(agent.id, "my-data-analyst");
    const run = await doc.create({ agent: "my-data-analyst", input: "Make the Q1 report.", environment: "remote" });
    assert.equal(emulator.runtime.channels.get(run.environment_id)!.files.get("/workspace/template.py"), "# template\n");
  });

  it("saves network rules with the agent, and replaces them for one call", async () => {
    // doc-example: custom-agents#apply-network-rules: issue-resolver with a repository and an allowlist with a transform (python, javascript, rest)
    await doc.client.agents.create(issueResolver("issue-resolver") as never);
    const byRest = await doc.rest("POST", "/v1beta/agents", issueResolver("issue-resolver-rest"));
    assert.equal(byRest.status, 200, byRest.text);

    // doc-example: custom-agents#override-network-configuration-refresh-credentials: a new network at call time, the sources kept (python, javascript, rest)
    const refreshed = (agent: string) => ({
      agent,
      input: "Fix issue #42 and open a PR.",
      environment: {
        type: "remote",
        network: {
          allowlist: [{ domain: "api.github.com", transform: { Authorization: "Bearer ghp_REFRESHED_TOKEN" } }, { domain: "pypi.org" }],
        },
      },
    });
    for (const result of [await doc.create(refreshed("issue-resolver")), await doc.createByRest(refreshed("issue-resolver-rest"))]) {
      assert.equal(
        emulator.runtime.channels.get(result.environment_id)!.files.get("/workspace/repo/setup.py"),
        "# backend\n",
        "the base environment's sources are kept",
      );
      const environment = (await doc.client.environments.get(result.environment_id)) as Json;
      const rules = environment.network?.allowlist ?? [];
      assert.deepEqual(
        rules.map((rule: Json) => rule.domain),
        ["api.github.com", "pypi.org"],
        JSON.stringify(environment.network),
      );
    }
  });

  it("lists, gets and deletes agents", async () => {
    // doc-example: custom-agents#list-agents: agents.list, each id and description (python, javascript, rest)
    const listed = (await doc.client.agents.list()) as Json;
    assert.ok(
      listed.agents.some((agent: Json) => agent.id === "data-analyst"),
      JSON.stringify(listed),
    );
    assert.ok((await doc.rest("GET", "/v1beta/agents")).json.agents.length >= 1);
    // doc-example: custom-agents#get-an-agent: agents.get data-analyst (python, javascript, rest)
    assert.equal(((await doc.client.agents.get("data-analyst")) as Json).base_agent, AGENT);
    assert.equal((await doc.rest("GET", "/v1beta/agents/data-analyst")).json.id, "data-analyst");
    // doc-example: custom-agents#delete-an-agent: agents.delete data-analyst (python, javascript, rest)
    await doc.client.agents.delete("data-analyst");
    assert.equal((await doc.rest("GET", "/v1beta/agents/data-analyst")).status, 404);
    assert.equal((await doc.rest("DELETE", "/v1beta/agents/data-analyst-rest")).status, 200);
  });
});
