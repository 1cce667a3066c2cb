// `npm run coverage`: writes docs/coverage.md, the parity table, from the pinned SDK's types, the
// tests' `// covers:` lines and the notes (parity-notes.ts). Lists every problem (an SDK method or
// field with no mark, a declaration naming nothing) and writes nothing while there are any.
// test/unit/parity-table.test.ts fails while the committed file differs from what this writes.

import fs from "node:fs";
import path from "node:path";
import { COVERAGE_FILE, FIDELITY_FILE, fidelityNow, parityTableNow } from "./coverage-now.js";

const { problems, markdown } = parityTableNow();
if (problems.length > 0) {
  console.error(`docs/coverage.md not written: ${problems.length} problem(s)`);
  for (const problem of problems) console.error(`- ${problem}`);
  process.exit(1);
}
fs.writeFileSync(COVERAGE_FILE, markdown);
// docs/fidelity.md's section on requests, from schemas/interactions.requests.exceptions.json.
fs.writeFileSync(FIDELITY_FILE, fidelityNow());
console.log(`wrote ${path.relative(process.cwd(), COVERAGE_FILE) || COVERAGE_FILE}`);
