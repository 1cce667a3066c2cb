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
const FENCE_OPENER = /(?<=^|[\s:(])(`{3,})([^`\n]*)\n/my;

/**
 * The fenced blocks of `text`, in order. `wanted` picks by info string which blocks are returned (all
 * are still walked, since a block hides the fences inside it): a long input may hold a million blocks,
 * and building each one's body only to drop it is most of the cost.
 */
export function findFencedBlocks(text: string, wanted: (info: string) => boolean = () => true): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  // A fence can open only where three backticks are: jump from one to the next (indexOf) and try the
  // opener there alone (sticky), rather than trying the lookbehind at every position of a long input.
  for (let from = text.indexOf("```"); from >= 0; ) {
    FENCE_OPENER.lastIndex = from;
    const opener = FENCE_OPENER.exec(text);
    if (!opener) {
      // No fence opens inside this run of backticks either (a backtick precedes each of its positions).
      let runEnd = from + 3;
      while (text.charCodeAt(runEnd) === 0x60) runEnd++;
      from = text.indexOf("```", runEnd);
      continue;
    }
    const fence = opener[1] ?? "```";
    const bodyStart = opener.index + opener[0].length;
    const info = (opener[2] ?? "").trim();
    const block = closeFence(text, bodyStart, fence.length);
    if (wanted(info)) blocks.push({ start: opener.index, end: block.end, info, body: block.body(), closed: block.closed });
    from = text.indexOf("```", block.end);
  }
  return blocks;
}

/** The closing-fence patterns for one fence length, compiled once (an input may hold thousands of blocks). */
const closers = new Map<number, { ownLine: RegExp; inline: RegExp }>();

function closersFor(fenceLength: number): { ownLine: RegExp; inline: RegExp } {
  let found = closers.get(fenceLength);
  if (!found) {
    found = { ownLine: new RegExp(`^[ \\t]*\`{${fenceLength},}[ \\t]*$`, "gm"), inline: new RegExp(`\`{${fenceLength},}`, "g") };
    // Fence lengths are as many as the input's longest run of backticks: keep only the usual ones.
    if (fenceLength <= 16) closers.set(fenceLength, found);
  }
  return found;
}

/** Where the block whose body starts at `bodyStart` (a line start) ends; searched in place, without copying the rest. */
function closeFence(text: string, bodyStart: number, fenceLength: number): { body: () => string; end: number; closed: boolean } {
  const { ownLine, inline } = closersFor(fenceLength);
  // Markdown's rule first: the closing fence is a line of its own. Only that makes code or JSON that
  // contains ``` inside a string safe.
  ownLine.lastIndex = bodyStart;
  const closingLine = ownLine.exec(text);
  if (closingLine) {
    const bodyEnd = Math.max(bodyStart, closingLine.index - 1);
    return { body: () => text.slice(bodyStart, bodyEnd), end: closingLine.index + closingLine[0].length, closed: true };
  }
  // Chat habit: "print(1)```" closes on the last code line.
  inline.lastIndex = bodyStart;
  const closing = inline.exec(text);
  if (closing) {
    const bodyEnd = closing.index;
    return { body: () => text.slice(bodyStart, bodyEnd).replace(/[ \t]+$/, ""), end: closing.index + closing[0].length, closed: true };
  }
  return { body: () => text.slice(bodyStart), end: text.length, closed: false };
}
