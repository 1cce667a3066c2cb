// The emulator's JSON API, with the session's key in the x-goog-api-key header (as the SDK sends it).
// Event streams are read with fetch rather than EventSource, because EventSource cannot send a header
// and the key must not travel in a URL. A 401 signs the page out, with the API's message.

import { currentKey, signOut } from "./session.js";

/** The API version the dashboard speaks (any version segment is the same API: docs/api.md). */
export const V = "/v1beta";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function request(path, options = {}) {
  const key = currentKey();
  const response = await fetch(path, {
    ...options,
    cache: "no-store",
    headers: { "x-goog-api-key": key ?? "", ...(options.headers ?? {}) },
  });
  if (response.ok) return response;
  const error = await errorOf(response);
  // Only while the refused key is still the one in use: a request sent with an earlier key (several
  // pages' requests are refused at once, or the user signed in again meanwhile) must not sign out the next.
  if (response.status === 401 && currentKey() === key) signOut(error.message);
  throw error;
}

/** Google's error shape, {"error": {"code", "message", "status"}}, as an ApiError. */
async function errorOf(response) {
  let message = `${response.status} ${response.statusText}`;
  let code = String(response.status);
  try {
    const body = await response.json();
    if (body?.error?.message) message = body.error.message;
    if (body?.error?.status) code = body.error.status;
  } catch {
    // Not JSON: the status line says what there is to say.
  }
  return new ApiError(response.status, code, message);
}

export async function getJson(path, signal) {
  return (await request(path, signal ? { signal } : {})).json();
}

export async function deleteJson(path) {
  const response = await request(path, { method: "DELETE" });
  return response.json();
}

export async function postJson(path, body = {}) {
  const response = await request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return response.json();
}

/**
 * Reads a server-sent event stream: `onOpen` once the server answered (from then on nothing is missed),
 * `onEvent` with each frame's JSON data. Resolves when the server ends the stream (`data: [DONE]` or
 * the end of the body); rejects when it
 * breaks or `signal` aborts.
 */
export async function readEventStream(path, { onEvent, onOpen, signal }) {
  const response = await request(path, { signal, headers: { accept: "text/event-stream" } });
  onOpen?.();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n");
      // The interaction streams end with the service's sentinel; the dashboard's own feed never ends.
      if (data === "[DONE]") return reader.cancel().catch(() => undefined);
      if (data) onEvent(JSON.parse(data));
      end = buffer.indexOf("\n\n");
    }
  }
}

/** Downloads a file of an environment (the key goes in the header, so the browser cannot fetch it by itself). */
export async function downloadFile(environmentId, path, name) {
  const response = await request(`${V}/environments/${encodeURIComponent(environmentId)}/files/${encodePath(path)}?alt=media`);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A sandbox path in a URL: each segment encoded, the slashes kept. */
export function encodePath(path) {
  return path.split("/").filter(Boolean).map(encodeURIComponent).join("/");
}
