// `import { InteractionsEmulatorContainer } from "interactions-sandbox-emulator/testcontainers"`
// (package.json "exports"; its types are types/testcontainers.d.ts). docs/embedding.md#testcontainers.

export { InteractionsEmulatorContainer, StartedInteractionsEmulatorContainer } from "./emulator-container.js";
export { EMULATOR_IMAGE_REPOSITORY, LABEL_EMULATOR_IMAGE } from "./emulator-image.js";
