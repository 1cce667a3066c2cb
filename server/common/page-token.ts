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

/** A bound on a page's bytes: the items' JSON (as sent) together, about. */
export interface PageBytes<T> {
  /** EMULATOR_LIST_PAGE_BYTES. */
  maxBytes: number;
  /** About the length of the item's JSON as the route sends it (json-size.ts). */
  sizeOf(item: T): number;
}

/**
 * One page of a listing ordered by ID: `fetch` is asked for one record more than the page holds, to
 * know whether another page follows; the token names the last ID shown. With `bytes`, the page also
 * ends before the item that would take it past `bytes.maxBytes` (a page holds at least one item), so
 * no list answer is larger than the bound plus one item: thirteen agents of 45 MB each made one answer
 * too long for a string (issue 29). `fetch` may yield its records one at a time (a store's iterate()),
 * so those past the page are never read.
 */
export function pageById<T extends { id: string }>(
  pageSize: number,
  pageToken: string | undefined,
  fetch: (limit: number, afterId: string | null) => Iterable<T>,
  bytes?: PageBytes<T>,
): { items: T[]; nextPageToken: string } {
  const afterId = pageToken ? decodePageToken(pageToken, (value): value is string => typeof value === "string" && value.length > 0) : null;
  const items: T[] = [];
  let more = false;
  let total = 0;
  for (const item of fetch(pageSize + 1, afterId)) {
    if (items.length === pageSize) {
      more = true;
      break;
    }
    if (bytes) {
      total += bytes.sizeOf(item);
      if (items.length > 0 && total > bytes.maxBytes) {
        more = true;
        break;
      }
    }
    items.push(item);
  }
  const last = items.at(-1);
  return { items, nextPageToken: more && last ? encodePageToken(last.id) : "" };
}
