// `interactions-emulator state export|import` (docs/state-snapshots.md): one API key's state to a file
// and back, through the running emulator's /emulator/state. The passphrase may come from
// EMULATOR_STATE_PASSPHRASE instead of --passphrase, which other users of the machine can see in `ps`.

import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { CliIo } from "./hooks-try.js";
import { EXIT, UsageError } from "./usage.js";

export interface StateCommand {
  action: "export" | "import";
  emulator: string;
  key: string;
  file: string;
  includeSecrets: boolean;
  passphrase: string | undefined;
}

function stateUrl(emulator: string, query = ""): string {
  let base: URL;
  try {
    base = new URL(emulator);
  } catch {
    throw new UsageError(`--emulator is a URL such as http://127.0.0.1:8080, not ${JSON.stringify(emulator)}`);
  }
  return `${base.origin}${base.pathname.replace(/\/+$/, "")}/emulator/state${query}`;
}

async function failure(response: Response, io: CliIo): Promise<number> {
  const text = await response.text();
  let message = text;
  try {
    message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
  } catch {
    // not JSON: shown as it is
  }
  io.err(`error: the emulator answered ${response.status}: ${message}\n`);
  return EXIT.failed;
}

export async function stateCommand(command: StateCommand, io: CliIo): Promise<number> {
  const headers: Record<string, string> = { "x-goog-api-key": command.key };
  if (command.passphrase !== undefined) headers["x-emulator-passphrase"] = command.passphrase;
  if (command.action === "export") {
    if (command.includeSecrets && command.passphrase === undefined) {
      throw new UsageError("--include-secrets needs --passphrase (or EMULATOR_STATE_PASSPHRASE) to seal the secrets with");
    }
    const response = await fetch(stateUrl(command.emulator, command.includeSecrets ? "?include_secrets=true" : ""), { headers });
    if (!response.ok || !response.body) return failure(response, io);
    // Written beside the target and renamed once whole: a cut-off export never leaves a file that looks complete.
    const partial = path.join(path.dirname(command.file), `.${path.basename(command.file)}.partial`);
    try {
      await pipeline(
        Readable.fromWeb(response.body as import("node:stream/web").ReadableStream),
        fs.createWriteStream(partial, { mode: 0o600 }),
      );
      fs.renameSync(partial, command.file);
    } catch (error) {
      fs.rmSync(partial, { force: true });
      throw error;
    }
    io.out(
      `exported to ${command.file} (${fs.statSync(command.file).size} bytes${command.includeSecrets ? ", secrets sealed" : ", secrets left out"})\n`,
    );
    return EXIT.ok;
  }
  if (!fs.existsSync(command.file)) throw new UsageError(`--in ${command.file}: no such file`);
  const response = await fetch(stateUrl(command.emulator), {
    method: "POST",
    headers: { ...headers, "content-type": "application/gzip" },
    body: Readable.toWeb(fs.createReadStream(command.file)) as unknown as RequestInit["body"],
    duplex: "half",
  } as RequestInit);
  if (!response.ok) return failure(response, io);
  const report = (await response.json()) as {
    environments: string[];
    interactions: number;
    credentials: Array<{ id: string; status: string }>;
    webhooks: Array<{ id: string; new_signing_secret?: string }>;
  };
  io.out(`imported ${report.environments.length} environment(s), ${report.interactions} interaction(s)\n`);
  for (const credential of report.credentials.filter((entry) => entry.status === "needs_secret")) {
    io.out(`credential ${credential.id} needs its secret set again (PATCH /v1beta/credentials/${credential.id})\n`);
  }
  for (const webhook of report.webhooks.filter((entry) => entry.new_signing_secret)) {
    io.out(`webhook ${webhook.id} has a new signing secret (shown once): ${webhook.new_signing_secret}\n`);
  }
  return EXIT.ok;
}
