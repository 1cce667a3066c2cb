// The documentation's code examples (ai.google.dev, Managed Agents and the Interactions API) and the
// official SDK's samples that the tests do not run, each with why: it needs a model (then it runs through
// the model agent against a loopback fake, docs/model-agent.md), it reaches an outside host, or it fails
// because of the emulator (the failure, as a `{ todo }` test shows it where one exists). The examples the
// tests run are declared by the tests themselves: a `// doc-example: page#section: what (languages)`
// line in the test that sends it. A `// (fails) page#section: what (languages)` line marks the example
// of a `{ todo }` test. docs/coverage.md lists both (server/parity/coverage-markdown.ts).

export type DocExampleResult = "needs a model" | "outside host" | "fails" | "not run";

export interface DocExampleNote {
  /** `page#section: what (languages)`, as a test's line would name it. */
  example: string;
  result: DocExampleResult;
  why: string;
}

export const DOC_EXAMPLE_NOTES: readonly DocExampleNote[] = [
  {
    example: "agent-environment#upload-large-files-with-a-resumable-session: uploadType=resumable, Content-Range chunks, 308 (rest)",
    result: "fails",
    why: "the emulator speaks the SDKs' resumable protocol (X-Goog-Upload-Protocol/Command headers), not uploadType=resumable with Content-Range chunks and 308 answers",
  },
  {
    example: "agent-environment#hooks: a .agents/hooks.json mounted as a source (link to agent-hooks)",
    result: "not run",
    why: "no code on this page; the hooks page's examples are the seed's, run by e2e/seed-hooks.test.ts",
  },
  {
    example: "js-genai sdk-samples/interactions_basic.ts and the other interactions_*.ts model samples",
    result: "needs a model",
    why: "they name a model (gemini-*-flash-lite): run through the model agent against a loopback fake (docs/model-agent.md); the emulator has no model of its own",
  },
  {
    example:
      "managed-agents-quickstart, antigravity-agent, streaming, background-execution, webhooks, triggers, agent-credentials, API errors and API reference pages",
    result: "not run",
    why: "not yet catalogued here example by example: only the pages' first screens could be read for this table; their examples' requests are sent by the tests named in the resource tables below (documented-requests, webhooks, triggers, custom-agents)",
  },
];
