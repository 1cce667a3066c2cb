// The package's types, types/index.d.ts, emitted from its entry point server/embed.ts instead of written
// a second time by hand: TypeScript's declaration emit for that one file (an isolated emit, so every
// export of embed.ts must spell out its types), under a header that says so. `npm run schemas` writes it
// (tools/write-schemas.ts); test/unit/package-declarations.test.ts fails while the committed file differs.

import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { projectRoot } from "../server/common/paths.js";

/** The declaration file package.json's "types" and "exports" name for the entry point. */
export const PACKAGE_DECLARATIONS_FILE = path.join(projectRoot, "types", "index.d.ts");
const ENTRY = path.join(projectRoot, "server", "embed.ts");

const HEADER = `// Types of the package's entry point, \`import { startEmulator } from "interactions-sandbox-emulator"\`
// (dist/server/embed.js). Generated from server/embed.ts by \`npm run schemas\` (tools/package-declarations.ts):
// do not edit; change embed.ts and run it. test/unit/package-declarations.test.ts fails while this file is stale.

`;

/** types/index.d.ts as server/embed.ts declares it now. */
export function packageDeclarationsText(entry = ENTRY): string {
  const { outputText, diagnostics = [] } = ts.transpileDeclaration(fs.readFileSync(entry, "utf8"), {
    fileName: path.basename(entry),
    compilerOptions: { removeComments: false },
    reportDiagnostics: true,
  });
  if (diagnostics.length > 0) {
    const messages = diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    throw new Error(`${path.relative(projectRoot, entry)} cannot be declared on its own: ${messages.join("; ")}`);
  }
  return HEADER + outputText;
}
