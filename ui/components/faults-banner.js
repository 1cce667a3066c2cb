// A banner on every page while this key has fault rules in force (docs/faults.md#the-dashboard): what a
// user sees failing may be injected, and the banner says so and links to the rules. Read again every
// few seconds while the page is visible (rules are set by tests, not here), and at once after the
// Faults page deleted some.

import { useEffect, useState } from "preact/hooks";
import { getJson } from "../api.js";
import { html } from "../html.js";
import { Link, links } from "../router.js";

const REFRESH_MS = 5000;
const CHANGED = "ui:faults-changed";

export function announceFaultsChanged() {
  window.dispatchEvent(new Event(CHANGED));
}

export function FaultsBanner() {
  const [active, setActive] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    let timer = null;
    const load = async () => {
      clearTimeout(timer);
      try {
        const body = await getJson("/emulator/faults", controller.signal);
        setActive(body.rules.filter((rule) => rule.remaining !== 0).length);
      } catch {
        // The page's own requests show what is wrong; the banner only keeps its last word.
      }
      if (!controller.signal.aborted) timer = setTimeout(refresh, REFRESH_MS);
    };
    const refresh = () => {
      if (document.visibilityState === "visible") void load();
      else timer = setTimeout(refresh, REFRESH_MS);
    };
    window.addEventListener(CHANGED, load);
    void load();
    return () => {
      controller.abort();
      clearTimeout(timer);
      window.removeEventListener(CHANGED, load);
    };
  }, []);
  if (active === 0) return null;
  return html`<div class="faults-banner" role="status">
    Faults are being injected: ${active === 1 ? "1 fault rule is" : `${active} fault rules are`} active for this key.
    <${Link} href=${links.faults()}>See the rules<//>
  </div>`;
}
