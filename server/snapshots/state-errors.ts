// Why a state file is refused before anything is imported (docs/state-snapshots.md#importing).

/** The file cannot be read: not a state file, another version, corrupt, truncated or too large. */
export class UnreadableStateError extends Error {}

/** The file passes a bound of this emulator; the message names the setting that raises it. */
export class StateBoundError extends UnreadableStateError {}
