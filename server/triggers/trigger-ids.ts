import { randomBytes } from "node:crypto";

// Random and unguessable, like the emulator's other IDs (common/ids.ts), with their own prefixes.
export const newTriggerId = (): string => `trg_${randomBytes(12).toString("hex")}`;
export const newExecutionId = (): string => `trx_${randomBytes(12).toString("hex")}`;
