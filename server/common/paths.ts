import { fileURLToPath } from "node:url";
import path from "node:path";

// This file runs compiled from dist/server/common/paths.js; the project root is three folders up.
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const sandboxImageDir = path.join(projectRoot, "sandbox-image");
export const compiledExecutorDir = path.join(projectRoot, "dist", "sandbox-image", "executor");
