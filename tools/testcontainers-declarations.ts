// The Testcontainers module's types, types/testcontainers.d.ts, emitted from its source instead of written
// a second time by hand: TypeScript's declaration emit of the files clients/node/index.ts re-exports from,
// of which only what index.ts exports is kept, with the imports those declarations use, in one file under a
// header that says so (members marked @internal are left out). `npm run schemas` writes it
// (tools/write-schemas.ts); test/unit/package-declarations.test.ts fails while the committed file differs.

import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { projectRoot } from "../server/common/paths.js";

/** The declaration file package.json's "exports" names for "interactions-sandbox-emulator/testcontainers". */
export const TESTCONTAINERS_DECLARATIONS_FILE = path.join(projectRoot, "types", "testcontainers.d.ts");
const ENTRY = path.join(projectRoot, "clients", "node", "index.ts");

const HEADER = `// Types of \`import { InteractionsEmulatorContainer } from "interactions-sandbox-emulator/testcontainers"\`
// (dist/clients/node/index.js, compiled from clients/node/). Generated from clients/node/ by \`npm run schemas\`
// (tools/testcontainers-declarations.ts): do not edit; change the source and run it.
// test/unit/package-declarations.test.ts fails while this file is stale.

`;

/** What index.ts re-exports: each source file (absolute, .ts) with the names taken from it. */
function reExports(entry: string): Map<string, string[]> {
  const source = ts.createSourceFile(entry, fs.readFileSync(entry, "utf8"), ts.ScriptTarget.ES2022, true);
  const found = new Map<string, string[]>();
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement) || !statement.moduleSpecifier || !statement.exportClause) continue;
    if (!ts.isNamedExports(statement.exportClause)) continue;
    const file = path.resolve(path.dirname(entry), (statement.moduleSpecifier as ts.StringLiteral).text.replace(/\.js$/, ".ts"));
    found.set(file, [...(found.get(file) ?? []), ...statement.exportClause.elements.map((element) => element.name.text)]);
  }
  return found;
}

function declaredNames(statement: ts.Statement): string[] {
  if (ts.isVariableStatement(statement))
    return statement.declarationList.declarations.flatMap((declaration) =>
      ts.isIdentifier(declaration.name) ? [declaration.name.text] : [],
    );
  if (
    (ts.isClassDeclaration(statement) ||
      ts.isFunctionDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement)) &&
    statement.name
  )
    return [statement.name.text];
  return [];
}

/** An import's text with only the names `used` holds; null when none is left. */
function importText(statement: ts.ImportDeclaration, used: (name: string) => boolean): string | null {
  const clause = statement.importClause;
  if (!clause) return null;
  const from = (statement.moduleSpecifier as ts.StringLiteral).text;
  const named =
    clause.namedBindings && ts.isNamedImports(clause.namedBindings)
      ? clause.namedBindings.elements.filter((element) => used(element.name.text))
      : [];
  const defaultName = clause.name && used(clause.name.text) ? clause.name.text : null;
  if (!defaultName && named.length === 0) return null;
  const typeOnly = clause.isTypeOnly ? "type " : "";
  const names = named.map((element) => `${element.isTypeOnly ? "type " : ""}${element.name.text}`).join(", ");
  const parts = [defaultName, names ? `{ ${names} }` : null].filter((part) => part !== null).join(", ");
  return `import ${typeOnly}${parts} from "${from}";`;
}

/** types/testcontainers.d.ts as clients/node/ declares its exports now. */
export function testcontainersDeclarationsText(entry = ENTRY): string {
  const exported = reExports(entry);
  const emitted = new Map<string, string>();
  const program = ts.createProgram([...exported.keys()], {
    declaration: true,
    emitDeclarationOnly: true,
    stripInternal: true,
    removeComments: false,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
  });
  const result = program.emit(undefined, (name, text) => emitted.set(path.resolve(name), text));
  if (result.diagnostics.length > 0) {
    const messages = result.diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    throw new Error(`clients/node cannot be declared: ${messages.join("; ")}`);
  }
  const imports: ts.ImportDeclaration[] = [];
  const declarations: string[] = [];
  for (const [file, names] of exported) {
    const declarationFile = file.replace(/\.ts$/, ".d.ts");
    const text = emitted.get(declarationFile);
    if (text === undefined) throw new Error(`no declarations were emitted for ${path.relative(projectRoot, file)}`);
    const source = ts.createSourceFile(declarationFile, text, ts.ScriptTarget.ES2022, true);
    for (const statement of source.statements) {
      if (ts.isImportDeclaration(statement)) imports.push(statement);
      else if (declaredNames(statement).some((name) => names.includes(name)))
        declarations.push(text.slice(statement.getFullStart(), statement.end).replace(/^\s*\n/, ""));
    }
  }
  const body = declarations.join("\n\n");
  const used = (name: string) => new RegExp(`\\b${name}\\b`).test(body);
  const importLines = [...new Set(imports.map((statement) => importText(statement, used)).filter((line) => line !== null))];
  return `${HEADER}${importLines.join("\n")}\n\n${body}\n`;
}
