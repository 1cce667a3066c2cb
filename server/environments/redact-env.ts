// `environment.env` as it may be shown back. Variables are set for the sandbox's code and hooks, but the
// API's echoes (an Interaction's `environment`, its stream snapshots) are read by whoever holds the key,
// logged by clients and kept by CI systems, and variables are where users put tokens. So the names are
// shown and every value is replaced by the same marker as injected header values, in the shape it was
// sent ("NAME": "[redacted]", or {"value": "[redacted]"}); a credential reference is an ID, not a secret,
// and stays. The sandbox still gets the real values (docs/environments-and-files.md#environment-variables).

import { REDACTED } from "../egress/redact-network.js";

export function redactEnv(env: unknown): unknown {
  if (typeof env !== "object" || env === null || Array.isArray(env)) return env;
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => {
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        return [name, "value" in value ? { ...value, value: REDACTED } : value];
      }
      return [name, REDACTED];
    }),
  );
}

/** An echoed `environment` with its variables' values redacted; an ID string or an object without `env` as it is. */
export function redactEnvironmentEcho(environment: unknown): unknown {
  if (typeof environment !== "object" || environment === null || !("env" in environment)) return environment;
  return { ...environment, env: redactEnv(environment.env) };
}
