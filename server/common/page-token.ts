// Page tokens are opaque to clients: base64url JSON of wherever the next page starts. One codec for
// every paged listing, so every listing refuses a foreign token the same way.

import { InvalidArgumentError } from "./errors.js";

export function encodePageToken(position: unknown): string {
  return Buffer.from(JSON.stringify(position), "utf8").toString("base64url");
}

/** The position a token encodes, if it has the shape `isPosition` expects; a 400 otherwise. */
export function decodePageToken<T>(token: string, isPosition: (value: unknown) => value is T): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    value = undefined;
  }
  if (!isPosition(value)) {
    throw new InvalidArgumentError("page_token is not one this emulator gave out; pass the next_page_token of the previous page.");
  }
  return value;
}

/**
 * One page of a listing ordered by ID: `fetch` is asked for one record more than the page holds, to
 * know whether another page follows; the token names the last ID shown.
 */
export function pageById<T extends { id: string }>(
  pageSize: number,
  pageToken: string | undefined,
  fetch: (limit: number, afterId: string | null) => T[],
): { items: T[]; nextPageToken: string } {
  const afterId = pageToken ? decodePageToken(pageToken, (value): value is string => typeof value === "string" && value.length > 0) : null;
  const page = fetch(pageSize + 1, afterId);
  const items = page.slice(0, pageSize);
  const last = items.at(-1);
  return { items, nextPageToken: page.length > pageSize && last ? encodePageToken(last.id) : "" };
}
