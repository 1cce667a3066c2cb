// About how long a value's JSON is, counted without building it: a page of a list is bounded in bytes
// (EMULATOR_LIST_PAGE_BYTES) before anything is written, and a 45 MB field must not be stringified
// just to be measured. Strings count their characters and quotes, not their escapes: "about".

/** About JSON.stringify(value).length; counting stops once it passes `cap` (the result is then > cap). */
export function jsonLengthAtMost(value: unknown, cap: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= cap) {
    const node = stack.pop();
    if (typeof node === "string") total += node.length + 2;
    else if (typeof node === "number") total += String(node).length;
    else if (typeof node === "boolean") total += node ? 4 : 5;
    else if (node === null) total += 4;
    else if (Array.isArray(node)) {
      total += 2 + Math.max(0, node.length - 1);
      for (const item of node) stack.push(item);
    } else if (typeof node === "object") {
      const entries = Object.entries(node as Record<string, unknown>).filter(([, item]) => item !== undefined);
      total += 2 + Math.max(0, entries.length - 1);
      for (const [key, item] of entries) {
        total += key.length + 3;
        stack.push(item);
      }
    }
  }
  return total;
}
