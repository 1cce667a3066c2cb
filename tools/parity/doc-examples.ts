// The documentation's code examples (ai.google.dev, Managed Agents and the Interactions API) and the
// official SDK's samples that the tests do not run, each with why: it needs a model (then it runs through
// the model agent against a loopback fake, docs/model-agent.md), it reaches an outside host, or it fails
// because of the emulator (the failure, as a `{ todo }` test shows it where one exists). The examples the
// tests run are declared by the tests themselves: a `// doc-example: page#section: what (languages)`
// line in the test that sends it. A `// (fails) page#section: what (languages)` line marks the example
// of a `{ todo }` test. docs/coverage.md lists both (tools/parity/coverage-markdown.ts).

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
    example: "antigravity-agent#mcp-servers: an mcp_server tool at gemini-api-demos.uc.r.appspot.com (python, javascript, rest)",
    result: "outside host",
    why: "the MCP server is an outside host; the emulator's MCP client is tested against loopback servers (test/integration/mcp-client.test.ts, EMULATOR_MCP_HOSTS)",
  },
  {
    example:
      "agent-credentials#use-credentials-with-mcp-servers: an mcp_server tool at api.githubcopilot.com with credential github-production (python, javascript, rest)",
    result: "outside host",
    why: "the MCP server is an outside host; the emulator reaches MCP servers on loopback and EMULATOR_MCP_HOSTS only (docs/security.md)",
  },
  {
    example:
      "webhooks#verify-dynamic-signatures-jwks: a JWT in Webhook-Signature checked against generativelanguage.googleapis.com/.well-known/jwks.json (python, javascript)",
    result: "outside host",
    why: "the key set is on an outside host, and the emulator signs deliveries to webhook_config.uris as Standard Webhooks (HMAC with the key's webhook secrets, docs/webhooks.md), not as a JWT: docs/fidelity.md",
  },
  {
    example: "webhooks#list-webhooks: the JavaScript example's for…of over the list's answer (javascript)",
    result: "not run",
    why: "a defect of the page, not of the emulator: webhooks.list() answers a WebhookListResponse in @google/genai 3.3.0, which is not iterable (TypeError against the service too); the test iterates its webhooks array",
  },
  {
    example: "streaming#streaming-with-multiple-tools: google_search and a function in one streamed request (python, javascript, rest)",
    result: "needs a model",
    why: "the answer is a model's, with Google Search results (an outside service the emulator does not emulate)",
  },
  {
    example: "streaming#streaming-with-agents: deep-research-preview-04-2026, background and stream (python, javascript, rest)",
    result: "fails",
    why: "the emulator runs the antigravity-* agents and custom agents only; deep-research-* is refused with a 400 that says so",
  },
  {
    example: "streaming#streaming-image-generation: gemini-3.1-flash-image with text and image response_format (python, javascript, rest)",
    result: "needs a model",
    why: "image output is a model's; the model agent's OpenAI-compatible backends answer text",
  },
  {
    example: "webhooks, custom-agents, streaming, agent-credentials: the Java and Go examples",
    result: "not run",
    why: "no Java or Go SDK here; each sends the same body as the page's REST example, which the tests send",
  },
];
