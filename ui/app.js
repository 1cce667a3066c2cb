// The dashboard's entry module: signs in (the key from ?key= or the sign-in page), then shows the page
// the address names, under a bar with the sections and the key in use.

import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { CoveragePage } from "./pages/coverage-page.js";
import { FaultsBanner } from "./components/faults-banner.js";
import { CredentialsPage } from "./pages/credentials-page.js";
import { EnvironmentPage } from "./pages/environment-page.js";
import { EnvironmentsPage } from "./pages/environments-page.js";
import { FaultsPage } from "./pages/faults-page.js";
import { InteractionPage } from "./pages/interaction-page.js";
import { InteractionsPage } from "./pages/interactions-page.js";
import { SignIn } from "./pages/sign-in.js";
import { WebhooksPage } from "./pages/webhooks-page.js";
import { Link, links, routeOf, useLocation } from "./router.js";
import { adoptKeyFromAddress, currentKey, maskedKey, onSessionChange, signOut } from "./session.js";

function App() {
  const [session, setSession] = useState(() => ({ key: adoptKeyFromAddress(), reason: null }));
  useEffect(() => onSessionChange((reason) => setSession({ key: currentKey(), reason })), []);
  const location = useLocation();
  if (!session.key) return html`<${SignIn} reason=${session.reason} />`;
  const route = routeOf(location.path);
  return html`<div class="layout">
    <nav class="bar">
      <span class="brand">Interactions emulator</span>
      <${Link} href=${links.interactions()} class=${route.page.startsWith("interaction") ? "current" : ""}>Interactions<//>
      <${Link} href=${links.environments()} class=${route.page.startsWith("environment") ? "current" : ""}>Environments<//>
      <${Link} href=${links.credentials()} class=${route.page === "credentials" ? "current" : ""}>Credentials<//>
      <${Link} href=${links.webhooks()} class=${route.page === "webhooks" ? "current" : ""}>Webhooks<//>
      <${Link} href=${links.coverage()} class=${route.page === "coverage" ? "current" : ""}>Hook coverage<//>
      <${Link} href=${links.faults()} class=${route.page === "faults" ? "current" : ""}>Faults<//>
      <span class="spacer"></span>
      <span class="key" title="the API key in use (its last characters)">key ${maskedKey(session.key)}</span>
      <button type="button" class="small" onClick=${() => signOut()}>Sign out</button>
    </nav>
    <${FaultsBanner} key=${session.key} />
    <${Page} route=${route} query=${location.query} key=${session.key} />
  </div>`;
}

function Page({ route, query }) {
  switch (route.page) {
    case "interactions":
      return html`<${InteractionsPage} query=${query} />`;
    case "interaction":
      return html`<${InteractionPage} id=${route.id} />`;
    case "environments":
      return html`<${EnvironmentsPage} />`;
    case "environment":
      return html`<${EnvironmentPage} id=${route.id} query=${query} />`;
    case "credentials":
      return html`<${CredentialsPage} />`;
    case "webhooks":
      return html`<${WebhooksPage} />`;
    case "coverage":
      return html`<${CoveragePage} query=${query} />`;
    case "faults":
      return html`<${FaultsPage} />`;
    default:
      return html`<main><h1>Not found</h1><p>The dashboard has no page at this address. <${Link} href=${links.interactions()}>Interactions<//></p></main>`;
  }
}

render(html`<${App} />`, document.getElementById("app"));
