// POST /v1beta/interactions with a plain fetch, the agent filled in: for tests that look at the raw
// answer (status and JSON body) rather than what an SDK makes of it.

export type JsonBody = Record<string, any>;

export const TEST_AGENT = "antigravity-preview-05-2026";

export async function postInteraction(baseUrl: string, key: string, body: JsonBody): Promise<{ status: number; body: JsonBody }> {
  const response = await fetch(`${baseUrl}/v1beta/interactions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": key },
    body: JSON.stringify({ agent: TEST_AGENT, ...body }),
  });
  return { status: response.status, body: (await response.json()) as JsonBody };
}
