// Asks for the API key once; it is kept for this browser tab only (session.js). The key is tried at once
// against the API, so a key the emulator does not accept (EMULATOR_API_KEYS) is refused here, with the
// API's own message.

import { useState } from "preact/hooks";
import { getJson } from "../api.js";
import { ErrorBox } from "../components/bits.js";
import { html } from "../html.js";
import { signIn, signOut } from "../session.js";

export function SignIn({ reason }) {
  const [key, setKey] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (event) => {
    event.preventDefault();
    if (!key.trim()) return;
    setBusy(true);
    signIn(key);
    try {
      // The pages open at once; this only catches a key the emulator refuses.
      await getJson("/emulator/interactions?page_size=1");
    } catch (failure) {
      // A 401 has signed out already, with the API's message; anything else says what went wrong.
      if (failure.status !== 401) signOut(`The emulator could not be asked: ${failure.message}`);
    } finally {
      setBusy(false);
    }
  };

  return html`<main class="sign-in">
    <h1>Interactions emulator</h1>
    <p>Everything here belongs to one API key, as in the API: enter the key your agent uses (the SDK's <code>apiKey</code> or <code>GEMINI_API_KEY</code>).</p>
    <${ErrorBox} error=${reason ? { message: reason } : null} />
    <form onSubmit=${submit}>
      <label for="api-key">API key</label>
      <input id="api-key" name="api-key" type="password" autocomplete="off" value=${key} onInput=${(event) => setKey(event.currentTarget.value)} autofocus />
      <button type="submit" disabled=${busy || !key.trim()}>Sign in</button>
    </form>
    <p class="muted small">The key is kept in this tab's session storage until the tab closes or you sign out. A link <code>/ui?key=KEY</code> signs in directly.</p>
  </main>`;
}
