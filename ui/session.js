// The API key the dashboard uses, kept in this tab's sessionStorage: asked for once, gone when the tab
// closes, never in a cookie (so never sent by the browser on its own) and never left in the address bar.
// `/ui?key=KEY` (links the command line prints, scripted checks) signs in and removes the key from the
// address at once with history.replaceState, so it stays out of the history and of bookmarks.

const KEY_ITEM = "interactions-emulator.api-key";
const listeners = new Set();

/** Takes `?key=` from the address, if there, into the session; returns the key now in use. */
export function adoptKeyFromAddress() {
  const url = new URL(window.location.href);
  if (!url.searchParams.has("key")) return currentKey();
  const key = (url.searchParams.get("key") ?? "").trim();
  url.searchParams.delete("key");
  window.history.replaceState(window.history.state, "", `${url.pathname}${url.search}${url.hash}`);
  if (key) sessionStorage.setItem(KEY_ITEM, key);
  return currentKey();
}

export function currentKey() {
  return sessionStorage.getItem(KEY_ITEM);
}

export function signIn(key) {
  sessionStorage.setItem(KEY_ITEM, key.trim());
  notify(null);
}

/** Forgets the key; `reason` (the API's message when it refused the key) is shown on the sign-in page. */
export function signOut(reason = null) {
  sessionStorage.removeItem(KEY_ITEM);
  notify(reason);
}

/** The key as the page shows it: its last four characters, so a user can tell which key is in use. */
export function maskedKey(key) {
  return key.length <= 4 ? "••••" : `••••${key.slice(-4)}`;
}

export function onSessionChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function notify(reason) {
  for (const listener of [...listeners]) listener(reason);
}
