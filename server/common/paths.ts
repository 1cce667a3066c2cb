import { fileURLToPath } from "node:url";
import path from "node:path";

// This file runs compiled from dist/server/common/paths.js; the project root is three folders up.
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const sandboxImageDir = path.join(projectRoot, "sandbox-image");
/** The Go executor, a static binary built from sandbox-image/executor-go (server/bootstrap/build-executor.mjs). */
export const executorBinaryPath = path.join(projectRoot, "dist", "sandbox-image", "sandbox-executor");
/** The dashboard's browser modules and style sheet, served as they are at /ui/assets/ (docs/dashboard.md). */
export const uiDir = path.join(projectRoot, "ui");
/** The service's OpenAPI document, vendored (schemas/README.md): the contract, the models, the parity table. */
export const openApiFile = path.join(projectRoot, "schemas", "interactions.openapi.json");

/**
 * Whether `child` is `folder` or lies under it (both absolute or both relative, normalised; "/" holds
 * everything). For paths in a sandbox and on the host alike: both are POSIX paths.
 */
export function isWithin(child: string, folder: string): boolean {
  return child === folder || child.startsWith(folder.endsWith("/") ? folder : `${folder}/`);
}
