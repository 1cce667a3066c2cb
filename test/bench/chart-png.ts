// Renders the charts of charts.ts to PNG in docs/images/ with the machine's Chromium, driven by
// playwright-core as the dashboard's browser test does (test/support/browser.ts): an SVG on a page, its
// screenshot. Without a Chromium the charts are skipped, with a line saying so.

import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { projectRoot } from "../../server/common/paths.js";
import { findChromium, INSTALL_CHROMIUM } from "../support/browser.js";
import { type ConcurrencyLevel, concurrencySvg, type TimeToInteractive, timeToInteractiveSvg } from "./charts.js";

export const CHART_DIR = path.join(projectRoot, "docs", "images");

export async function writeCharts(input: {
  tti: TimeToInteractive | null;
  levels: ConcurrencyLevel[] | null;
  machine: string;
}): Promise<string[]> {
  const caption = `npm run bench, ${new Date().toISOString().slice(0, 10)}, ${input.machine}`;
  const charts: Array<{ file: string; svg: string }> = [];
  if (input.tti) charts.push({ file: "bench-time-to-interactive.png", svg: timeToInteractiveSvg(input.tti, caption) });
  if (input.levels) charts.push({ file: "bench-concurrency.png", svg: concurrencySvg(input.levels, caption) });
  if (charts.length === 0) return [];
  const executable = findChromium();
  if (!executable) return [`charts not drawn: no Chromium found; ${INSTALL_CHROMIUM}`];
  const browser = await chromium.launch({ executablePath: executable, args: ["--no-sandbox"] });
  const lines: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 900, height: 460 }, deviceScaleFactor: 2 });
    fs.mkdirSync(CHART_DIR, { recursive: true });
    for (const chart of charts) {
      await page.setContent(`<!doctype html><html><body style="margin:0">${chart.svg}</body></html>`);
      const file = path.join(CHART_DIR, chart.file);
      await page.locator("svg").screenshot({ path: file });
      lines.push(`chart written to ${path.relative(process.cwd(), file)}`);
    }
  } finally {
    await browser.close();
  }
  return lines;
}
