// The operator's egress settings, read the same way by the server (in-process proxy) and by the
// standalone proxy process, so the two cannot drift.

import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseHostMap, type HostMap } from "./host-map.js";
import { DEFAULT_OAUTH2_SETTINGS, type OAuth2Settings } from "./oauth2-tokens.js";
import { DEFAULT_MAX_SUBSTITUTION_BODY_BYTES } from "./substitution.js";

/**
 * The default data folder of the server and of the standalone proxy (XDG-style, so state survives
 * across checkouts; ./.emulator when there is no home): both find the same CA from the same account.
 */
export function defaultDataDirectory(env: NodeJS.ProcessEnv): string {
  const home = env.HOME || os.homedir();
  if (!home) return path.resolve(".emulator");
  return path.join(env.XDG_DATA_HOME || path.join(home, ".local", "share"), "interactions-emulator");
}

/** The CA folder inside a data folder; the server installs `<it>/ca.pem` in sandboxes. */
export const CA_DIRECTORY_NAME = "egress-ca";

export function caDirectoryFor(dataDirectory: string): string {
  return path.join(dataDirectory, CA_DIRECTORY_NAME);
}

export class EgressSettingsError extends Error {
  override name = "EgressSettingsError";
}

/** Reads a PEM file of CA certificates; refuses a file with none (a typo would otherwise be silent). */
export function readCaFile(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new EgressSettingsError(`EMULATOR_EGRESS_CA_FILE: cannot read ${file}: ${(error as Error).message}`);
  }
  const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (certificates.length === 0) throw new EgressSettingsError(`EMULATOR_EGRESS_CA_FILE: ${file} holds no PEM certificate`);
  return certificates.map((certificate) => `${certificate}\n`);
}

export type EgressEnvironmentSettings = {
  hostMap: HostMap;
  trustedUpstreamCas: string[];
  oauth2: OAuth2Settings;
  maxSubstitutionBodyBytes: number;
};

/** A positive whole number setting (a string from the environment, or a number a schema already coerced). */
function positiveSetting(name: string, value: string | number | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new EgressSettingsError(`${name}: "${value}" is not a positive whole number`);
  return number;
}

export function egressSettingsFromEnv(env: {
  EMULATOR_EGRESS_HOST_MAP?: string | undefined;
  EMULATOR_EGRESS_CA_FILE?: string | undefined;
  EMULATOR_EGRESS_SUBSTITUTION_MAX_BODY_BYTES?: string | number | undefined;
  EMULATOR_OAUTH2_TOKEN_TIMEOUT_SECONDS?: string | number | undefined;
  EMULATOR_OAUTH2_TOKEN_MAX_BYTES?: string | number | undefined;
}): EgressEnvironmentSettings {
  let hostMap: HostMap;
  try {
    hostMap = parseHostMap(env.EMULATOR_EGRESS_HOST_MAP);
  } catch (error) {
    throw new EgressSettingsError(`EMULATOR_EGRESS_HOST_MAP: ${(error as Error).message}`);
  }
  const caFile = env.EMULATOR_EGRESS_CA_FILE;
  return {
    hostMap,
    trustedUpstreamCas: caFile ? readCaFile(caFile) : [],
    oauth2: {
      timeoutMs:
        positiveSetting(
          "EMULATOR_OAUTH2_TOKEN_TIMEOUT_SECONDS",
          env.EMULATOR_OAUTH2_TOKEN_TIMEOUT_SECONDS,
          DEFAULT_OAUTH2_SETTINGS.timeoutMs / 1000,
        ) * 1000,
      maxAnswerBytes: positiveSetting(
        "EMULATOR_OAUTH2_TOKEN_MAX_BYTES",
        env.EMULATOR_OAUTH2_TOKEN_MAX_BYTES,
        DEFAULT_OAUTH2_SETTINGS.maxAnswerBytes,
      ),
    },
    maxSubstitutionBodyBytes: positiveSetting(
      "EMULATOR_EGRESS_SUBSTITUTION_MAX_BODY_BYTES",
      env.EMULATOR_EGRESS_SUBSTITUTION_MAX_BODY_BYTES,
      DEFAULT_MAX_SUBSTITUTION_BODY_BYTES,
    ),
  };
}
