// Markdown fenced blocks as people type them in chat, found in the input text. Shared by the script
// reader (a ```tool_calls block) and the phrasing reader (code in ```bash / ```python blocks).

export interface FencedBlock {
  start: number;
  end: number;
  /** The text after the opening backticks on the same line ("tool_calls", "python", ""). */
  info: string;
  body: string;
  closed: boolean;
}

// An opening fence may follow text on its line ("Run this ```python"), as people type in chat, but not
// directly after a word character, so the closing half of an inline ```x``` is not an opener.
const FENCE_OPENER = /(?<=^|[\s:(])(`{3,})([^`\n]*)\n/gm;

export function findFencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  FENCE_OPENER.lastIndex = 0;
  for (let opener = FENCE_OPENER.exec(text); opener; opener = FENCE_OPENER.exec(text)) {
    const fence = opener[1] ?? "```";
    const bodyStart = opener.index + opener[0].length;
    const rest = text.slice(bodyStart);
    const block = closeFence(rest, fence.length);
    blocks.push({
      start: opener.index,
      end: bodyStart + block.consumed,
      info: (opener[2] ?? "").trim(),
      body: block.body,
      closed: block.closed,
    });
    FENCE_OPENER.lastIndex = bodyStart + block.consumed;
  }
  return blocks;
}

/** The closing-fence patterns for one fence length, compiled once (an input may hold thousands of blocks). */
const closers = new Map<number, { ownLine: RegExp; inline: RegExp }>();

function closersFor(fenceLength: number): { ownLine: RegExp; inline: RegExp } {
  let found = closers.get(fenceLength);
  if (!found) {
    found = { ownLine: new RegExp(`^[ \\t]*\`{${fenceLength},}[ \\t]*$`, "m"), inline: new RegExp(`\`{${fenceLength},}`) };
    // Fence lengths are as many as the input's longest run of backticks: keep only the usual ones.
    if (fenceLength <= 16) closers.set(fenceLength, found);
  }
  return found;
}

function closeFence(rest: string, fenceLength: number): { body: string; consumed: number; closed: boolean } {
  const patterns = closersFor(fenceLength);
  // Markdown's rule first: the closing fence is a line of its own. Only that makes code or JSON that
  // contains ``` inside a string safe.
  const ownLine = patterns.ownLine.exec(rest);
  if (ownLine) {
    return { body: rest.slice(0, Math.max(0, ownLine.index - 1)), consumed: ownLine.index + ownLine[0].length, closed: true };
  }
  // Chat habit: "print(1)```" closes on the last code line.
  const inline = patterns.inline.exec(rest);
  if (inline) return { body: rest.slice(0, inline.index).replace(/[ \t]+$/, ""), consumed: inline.index + inline[0].length, closed: true };
  return { body: rest, consumed: rest.length, closed: false };
}
