// The dashboard's one HTML page (docs/dashboard.md) and the Content-Security-Policy it is served with.
// Everything the page runs is a module file of this emulator (`ui/`, at /ui/assets/) or of the preact
// and htm packages (at /ui/vendor/); the import map that names those packages is the page's only inline
// script, allowed by its SHA-256 hash and nothing else. [choice] The key the page holds is the user's
// API key, so the policy is as strict as the page allows: no inline or eval'd script, no other origin
// for anything, no framing, no forms posting anywhere, and Trusted Types so no string ever becomes HTML.

import { createHash } from "node:crypto";

/** Where each package module the page imports is served. */
export interface VendorModule {
  /** The bare specifier the page's modules import ("preact/hooks"). */
  specifier: string;
  /** Its file name under /ui/vendor/. */
  file: string;
}

export interface UiShell {
  html: string;
  contentSecurityPolicy: string;
}

export function uiShell(vendor: readonly VendorModule[]): UiShell {
  const importMap = JSON.stringify({
    imports: Object.fromEntries(vendor.map((module) => [module.specifier, `/ui/vendor/${module.file}`])),
  });
  const hash = createHash("sha256").update(importMap, "utf8").digest("base64");
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Interactions emulator</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/ui/assets/style.css">
<script type="importmap">${importMap}</script>
<script type="module" src="/ui/assets/app.js"></script>
</head>
<body>
<div id="app"><noscript>The dashboard needs JavaScript (ES modules and import maps: any current browser).</noscript></div>
</body>
</html>
`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src 'self' 'sha256-${hash}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join("; ");
  return { html, contentSecurityPolicy };
}
