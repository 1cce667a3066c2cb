// `npm run schemas`: writes the generated files of schemas/: hooks.schema.json from the zod schema the
// hooks parser uses (server/hooks/hooks-schema.ts), and sdk-request-fields.json, the fields each request
// body may hold, from the pinned SDK's types (tools/sdk-request-fields.ts), and the Go executor's protocol
// file from the executor's protocol tables (sandbox-image/executor/protocol-go.ts); and the package's types,
// types/index.d.ts, from server/embed.ts (tools/package-declarations.ts), and types/testcontainers.d.ts from
// clients/node/ (tools/testcontainers-declarations.ts); and the service's wire types,
// server/wire/openapi-types.ts, from the OpenAPI document (tools/openapi-types.ts).
// test/unit/hooks-json-schema.test.ts, sdk-request-fields.test.ts, protocol-go-generated.test.ts,
// package-declarations.test.ts and openapi-types-generated.test.ts fail while a committed file differs
// from what is generated.

import fs from "node:fs";
import path from "node:path";
import { SDK_FIELDS_FILE } from "../server/api/declared-fields.js";
import { projectRoot } from "../server/common/paths.js";
import { GO_PROTOCOL_FILE, goProtocolText } from "../sandbox-image/executor/protocol-go.js";
import { hooksJsonSchemaText } from "../server/http/schema-routes.js";
import { OPENAPI_TYPES_FILE, openApiTypesText } from "./openapi-types.js";
import { PACKAGE_DECLARATIONS_FILE, packageDeclarationsText } from "./package-declarations.js";
import { TESTCONTAINERS_DECLARATIONS_FILE, testcontainersDeclarationsText } from "./testcontainers-declarations.js";
import { sdkRequestFieldsText } from "./sdk-request-fields.js";

const HOOKS_SCHEMA_FILE = path.join(projectRoot, "schemas", "hooks.schema.json");

fs.mkdirSync(path.dirname(HOOKS_SCHEMA_FILE), { recursive: true });
for (const [file, text] of [
  [HOOKS_SCHEMA_FILE, hooksJsonSchemaText()],
  [SDK_FIELDS_FILE, sdkRequestFieldsText()],
  [path.join(projectRoot, GO_PROTOCOL_FILE), goProtocolText()],
  [PACKAGE_DECLARATIONS_FILE, packageDeclarationsText()],
  [TESTCONTAINERS_DECLARATIONS_FILE, testcontainersDeclarationsText()],
  [OPENAPI_TYPES_FILE, openApiTypesText()],
] as const) {
  fs.writeFileSync(file, text);
  console.log(`wrote ${path.relative(process.cwd(), file) || file}`);
}
