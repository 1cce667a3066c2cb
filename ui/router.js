// Addresses under /ui are the dashboard's pages; the server answers every one of them with the same
// page, and this module picks what to show. Links change the address with history.pushState, so the
// back button, reloading and sharing an address all work.

import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";

const NAVIGATED = "ui:navigated";

function snapshot() {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

export function useLocation() {
  const [location, setLocation] = useState(snapshot);
  useEffect(() => {
    const update = () => setLocation(snapshot());
    window.addEventListener("popstate", update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return location;
}

export function navigate(href, { replace = false } = {}) {
  if (replace) window.history.replaceState(null, "", href);
  else window.history.pushState(null, "", href);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** A link inside the dashboard: a plain click navigates in place; a middle or modified click opens as usual. */
export function Link({ href, children, ...rest }) {
  const onClick = (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return html`<a href=${href} onClick=${onClick} ...${rest}>${children}</a>`;
}

/** Which page an address shows. */
export function routeOf(path) {
  const parts = path.replace(/\/+$/, "").split("/").slice(2).map(decodeURIComponent);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === "interactions")) return { page: "interactions" };
  if (parts.length === 2 && parts[0] === "interactions") return { page: "interaction", id: parts[1] };
  if (parts.length === 1 && parts[0] === "environments") return { page: "environments" };
  if (parts.length === 2 && parts[0] === "environments") return { page: "environment", id: parts[1] };
  if (parts.length === 1 && parts[0] === "credentials") return { page: "credentials" };
  if (parts.length === 1 && parts[0] === "webhooks") return { page: "webhooks" };
  if (parts.length === 1 && parts[0] === "coverage") return { page: "coverage" };
  if (parts.length === 1 && parts[0] === "faults") return { page: "faults" };
  return { page: "not_found" };
}

export const links = {
  interactions: (query) => `/ui/interactions${query?.toString() ? `?${query}` : ""}`,
  interaction: (id) => `/ui/interactions/${encodeURIComponent(id)}`,
  environments: () => "/ui/environments",
  faults: () => "/ui/faults",
  environment: (id, path) => `/ui/environments/${encodeURIComponent(id)}${path ? `?path=${encodeURIComponent(path)}` : ""}`,
  credentials: () => "/ui/credentials",
  webhooks: () => "/ui/webhooks",
  coverage: (environmentId) => `/ui/coverage${environmentId ? `?environment=${encodeURIComponent(environmentId)}` : ""}`,
};
