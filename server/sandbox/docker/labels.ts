// Labels on every container the emulator creates: they let a restarted emulator find its sandboxes
// again, and keep two emulators (EMULATOR_INSTANCE) sharing one engine out of each other's way.
export const LABEL_MANAGED = "dev.interactions-emulator.managed";
export const LABEL_INSTANCE = "dev.interactions-emulator.instance";
export const LABEL_ENVIRONMENT = "dev.interactions-emulator.environment";
export const LABEL_OWNER = "dev.interactions-emulator.owner";
export const LABEL_IMAGE_HASH = "dev.interactions-emulator.image-hash";
// Set by an emulator that keeps a lease (docs/environments-and-files.md#sandboxes-of-an-emulator-that-is-gone):
// its data folder, and the machine (and mount namespace) on which that path means something. Objects
// without them are never removed by another emulator.
export const LABEL_DATA_DIR = "dev.interactions-emulator.data-dir";
export const LABEL_HOST = "dev.interactions-emulator.host";
/** On a lease volume: until when (epoch milliseconds) its emulator counts as running. */
export const LABEL_LEASE_EXPIRES = "dev.interactions-emulator.lease-expires";
/**
 * "true" on a warm pool container (sandbox-pool.ts): started with nothing of anyone's, labelled with the
 * environment that will take it and no owner. Labels cannot change, so it stays "true" once taken; the
 * name tells the two apart on the engine: iemu-<instance>-pool-<id> while it waits, renamed
 * iemu-<instance>-<environment id> just after it is taken. Other sandbox containers say "false", so that
 * a fork's container does not inherit "true" from the image committed from a pooled one.
 */
export const LABEL_POOLED = "dev.interactions-emulator.pooled";
