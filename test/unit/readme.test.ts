// README.md is a newcomer's page (issue 33): one screen of what the emulator is, the two commands, the
// documentation's first example (run by test/e2e/readme-example.test.ts) and a map of docs/ with one line
// per page. Everything else lives in docs/; these checks keep it that way as features are added.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { projectRoot } from "../../server/common/paths.js";

const README = path.join(projectRoot, "README.md");
const DOCS = path.join(projectRoot, "docs");
const readme = fs.readFileSync(README, "utf8");

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replaceAll(" ", "-");
}

/** The relative links of a Markdown text, as [target, anchor] (external and same-page links left out). */
function relativeLinks(markdown: string): Array<[string, string]> {
  const links: Array<[string, string]> = [];
  for (const match of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!;
    if (/^[a-z]+:/.test(target) || target.startsWith("#")) continue;
    const [file, anchor = ""] = target.split("#");
    links.push([file!, anchor]);
  }
  return links;
}

describe("README.md", () => {
  it("fits one screen: at most 12 KB", () => {
    const size = Buffer.byteLength(readme);
    assert.ok(size <= 12 * 1024, `README.md is ${size} bytes; move detail to a docs/ page and link it from the map`);
  });

  it("has the two commands and the documentation's first example", () => {
    assert.match(readme, /^npm start\b/m);
    assert.match(readme, /^npm test\b/m);
    assert.match(readme, /## The first example[\s\S]*?```js[\s\S]*?environment: "remote"/);
  });

  it("maps every page of docs/, one line each", () => {
    const pages = fs.readdirSync(DOCS).filter((name) => name.endsWith(".md"));
    for (const page of pages) {
      const lines = readme.split("\n").filter((line) => line.startsWith("|") && line.includes(`(docs/${page})`));
      assert.equal(lines.length, 1, `docs/${page} has one line in README.md's map of docs/`);
    }
  });

  it("links only to files that exist, and pages link only to README anchors that exist", () => {
    for (const [file] of relativeLinks(readme))
      assert.ok(fs.existsSync(path.join(projectRoot, file)), `README.md links to ${file}, which is missing`);
    const anchors = new Set([...readme.matchAll(/^#+ (.+)$/gm)].map((match) => anchorOf(match[1]!)));
    const pages = [
      ...fs.readdirSync(DOCS).map((name) => path.join(DOCS, name)),
      path.join(projectRoot, "clients", "python", "README.md"),
    ].filter((file) => file.endsWith(".md"));
    for (const page of pages) {
      for (const [file, anchor] of relativeLinks(fs.readFileSync(page, "utf8"))) {
        if (path.resolve(path.dirname(page), file) !== README || anchor === "") continue;
        assert.ok(
          anchors.has(anchor),
          `${path.relative(projectRoot, page)} links to README.md#${anchor}, a heading README.md no longer has`,
        );
      }
    }
  });
});
