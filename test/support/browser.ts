// A headless Chromium for the dashboard's browser test, driven by playwright-core (which downloads no
// browser: it drives the one installed, Debian's `chromium`). `npm test` installs it when missing
// (server/bootstrap/ensure-chromium.sh) and passes its path as EMULATOR_CHROMIUM; run directly, the test
// looks for it on PATH under the same names. Without one, the test fails in CI (CI=true) and is skipped
// elsewhere, each time saying how to install one.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { projectRoot } from "../../server/common/paths.js";

/** As ensure-chromium.sh looks for it. */
const CHROMIUM_NAMES = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"];

export const INSTALL_CHROMIUM =
  "install it with `apt-get install chromium` as root (`npm test` does this itself when run as root), or set EMULATOR_CHROMIUM to a Chromium or Chrome binary";

export function findChromium(): string | null {
  const named = process.env.EMULATOR_CHROMIUM;
  if (named) return isExecutableFile(named) ? named : null;
  for (const name of CHROMIUM_NAMES) {
    try {
      const found = execFileSync("bash", ["-c", 'command -v "$1"', "bash", name], { encoding: "utf8" }).trim();
      if (found && isExecutableFile(found)) return found;
    } catch {
      // not this one
    }
  }
  return null;
}

function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function runningInCi(): boolean {
  const ci = (process.env.CI ?? "").toLowerCase();
  return ci !== "" && ci !== "false" && ci !== "0";
}

/** Where screenshots of a failing browser test are kept (git-ignored). */
export const SCREENSHOT_DIR = path.join(projectRoot, "test-results", "dashboard");

/**
 * Runs `work`; if it throws, a screenshot of every page (full length) is kept under SCREENSHOT_DIR and
 * its path printed, and the error goes on.
 */
export async function screenshotsOnFailure(name: string, pages: () => Page[], work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    for (const [index, page] of pages().entries()) {
      const file = path.join(SCREENSHOT_DIR, `${name.replace(/[^a-z0-9]+/gi, "-")}-${stamp}-${index}.png`);
      try {
        await page.screenshot({ path: file, fullPage: true });
        console.error(`screenshot of the failing page (${page.url()}): ${file}`);
      } catch (screenshotError) {
        console.error(`could not take a screenshot of ${page.url()}: ${String(screenshotError)}`);
      }
    }
    throw error;
  }
}
