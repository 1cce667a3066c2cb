// `environment.env`: variables every tool command in the sandbox sees. Plain values and {value} are
// set as given. {credential} names an environment_variable credential: the variable will hold a
// placeholder and the egress proxy puts the secret in its place on the wire (server/environments/
// env-credentials.ts), so here it is only collected.

import { setOwn } from "../common/own-keys.js";
import { InvalidArgumentError } from "../common/errors.js";
import type { EnvironmentInput } from "../api/create-interaction.js";
import { EXEC_MARKER_VARIABLE } from "../../sandbox-image/executor/protocol.js";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// The executor marks its own processes with this variable; a user value must not spoof the marker.
const RESERVED = new Set([EXEC_MARKER_VARIABLE]);

export type PreparedEnv = {
  /** Plain values, set as given. */
  values: Record<string, string>;
  /** Variables backed by a credential: name → credential ID. */
  credentials: Record<string, string>;
};

export function prepareEnvVars(env: EnvironmentInput["env"]): PreparedEnv {
  const out: Record<string, string> = {};
  const credentials: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? {})) {
    const where = `environment.env.${name}`;
    if (!NAME.test(name)) throw new InvalidArgumentError(`${where}: a variable name is letters, digits and _, not starting with a digit`);
    if (RESERVED.has(name)) throw new InvalidArgumentError(`${where}: the name is reserved by the emulator's executor`);
    if (typeof value === "string") {
      setOwn(out, name, value);
    } else if (value.credential !== undefined) {
      if (value.value !== undefined) throw new InvalidArgumentError(`${where}: give either "value" or "credential", not both`);
      setOwn(credentials, name, value.credential);
      continue;
    } else if (value.value !== undefined) {
      setOwn(out, name, value.value);
    } else {
      throw new InvalidArgumentError(`${where}: give a string, {"value": "…"} or {"credential": "…"}`);
    }
    if (out[name]!.includes("\0")) throw new InvalidArgumentError(`${where}: the value contains a NUL character`);
  }
  return { values: out, credentials };
}
