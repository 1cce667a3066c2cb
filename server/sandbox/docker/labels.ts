// Labels on every container the emulator creates: they let a restarted emulator find its sandboxes
// again, and keep two emulators (EMULATOR_INSTANCE) sharing one engine out of each other's way.
export const LABEL_MANAGED = "dev.interactions-emulator.managed";
export const LABEL_INSTANCE = "dev.interactions-emulator.instance";
export const LABEL_ENVIRONMENT = "dev.interactions-emulator.environment";
export const LABEL_OWNER = "dev.interactions-emulator.owner";
export const LABEL_IMAGE_HASH = "dev.interactions-emulator.image-hash";
