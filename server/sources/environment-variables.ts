// `environment.env`: variables every tool command in the sandbox sees. Plain values and {value} are
// supported. {credential} is refused: the real service keeps the secret out of the sandbox and
// substitutes it on the way out, which our egress proxy does not do for environment variables yet.

import { setOwn } from "../common/own-keys.js";
import { InvalidArgumentError } from "../common/errors.js";
import type { EnvironmentInput } from "../api/create-interaction.js";
import { EXEC_MARKER_VARIABLE } from "../../sandbox-image/executor/protocol.js";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// The executor marks its own processes with this variable; a user value must not spoof the marker.
const RESERVED = new Set([EXEC_MARKER_VARIABLE]);

export function prepareEnvVars(env: EnvironmentInput["env"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? {})) {
    const where = `environment.env.${name}`;
    if (!NAME.test(name)) throw new InvalidArgumentError(`${where}: a variable name is letters, digits and _, not starting with a digit`);
    if (RESERVED.has(name)) throw new InvalidArgumentError(`${where}: the name is reserved by the emulator's executor`);
    if (typeof value === "string") {
      setOwn(out, name, value);
    } else if (value.credential !== undefined) {
      throw new InvalidArgumentError(
        `${where}: credential references are not supported by this emulator yet; pass the value as a string or {"value": …}`,
      );
    } else if (value.value !== undefined) {
      setOwn(out, name, value.value);
    } else {
      throw new InvalidArgumentError(`${where}: give a string, {"value": "…"} or {"credential": "…"}`);
    }
    if (out[name]!.includes("\0")) throw new InvalidArgumentError(`${where}: the value contains a NUL character`);
  }
  return out;
}
