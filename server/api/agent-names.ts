// The names of the agents this emulator runs itself. Shared by the interactions resource (which names an
// interaction may give) and the agents resource (which base_agent a custom agent may extend, and which
// ids it may not take), so both read one definition.

/** Agents this emulator runs; any `antigravity-*` name is accepted, since new previews appear often. */
export const EMULATED_AGENT_PREFIX = "antigravity-";
export const KNOWN_AGENTS = ["antigravity-preview-05-2026", "antigravity-preview-09-2026"];

/** Whether the emulator runs an agent of this name itself (not a custom agent). */
export function isEmulatedAgent(name: string): boolean {
  return name.startsWith(EMULATED_AGENT_PREFIX);
}
