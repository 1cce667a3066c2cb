// The schema an MCP tool's answer is read with: the SDK's own CallToolResultSchema, which checks the
// answer's shape, but with `structuredContent` kept exactly as the server sent it. The SDK's schema
// parses it as a zod record, which drops a "__proto__" key (server/common/own-keys.ts); the answer is
// the user's JSON and is recorded as sent.

import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

export const CallToolResultKeepingContent = z.unknown().transform((input, context) => {
  const parsed = CallToolResultSchema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) context.addIssue({ ...issue } as never);
    return z.NEVER;
  }
  const raw = input as { structuredContent?: unknown };
  return raw.structuredContent === undefined ? parsed.data : { ...parsed.data, structuredContent: raw.structuredContent };
});
