// `npm run schemas`: writes schemas/hooks.schema.json from the zod schema the hooks parser uses
// (server/hooks/hooks-schema.ts). test/unit/hooks-json-schema.test.ts fails while the committed file
// differs from what the code generates.

import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "./common/paths.js";
import { hooksJsonSchemaText } from "./http/schema-routes.js";

const HOOKS_SCHEMA_FILE = path.join(projectRoot, "schemas", "hooks.schema.json");

fs.mkdirSync(path.dirname(HOOKS_SCHEMA_FILE), { recursive: true });
fs.writeFileSync(HOOKS_SCHEMA_FILE, hooksJsonSchemaText());
console.log(`wrote ${path.relative(process.cwd(), HOOKS_SCHEMA_FILE) || HOOKS_SCHEMA_FILE}`);
