// The command line's help text and its exit statuses, in one place so the docs can quote them.

/** Exit statuses: 0 fine (allowed), 1 errors found or the command failed, 2 denied (`hooks try`), 64 usage. */
export const EXIT = { ok: 0, failed: 1, denied: 2, usage: 64, interrupted: 130 } as const;

export const USAGE = `Usage: interactions-emulator <command>

  hooks check [FILE] [--json]
      Check a hooks.json (default .agents/hooks.json) with the emulator's own parser: every error,
      warning and typo hint at its line and column. Exit 1 when there are errors.

  hooks try --call '{"name": "code_execution", "args": {"code": "ls"}}' [--dir DIR] [--at root|workspace]
            [--emulator URL [--api-key KEY]] [--json]
      Run that one tool call's pre and post hooks from DIR/.agents (default: the current folder) in a
      throwaway sandbox, the tool itself included, and print the hook trace. DIR/.agents is placed at
      /.agents (--at root, the default) or /workspace/.agents. Without --emulator a throwaway emulator
      is started and removed afterwards; with it, the emulator at URL is used (its API key: --api-key,
      else GEMINI_API_KEY). Exit 0 when the call is allowed, 2 when a hook denies it.

  state export --emulator URL --key K --out FILE [--include-secrets --passphrase P]
  state import --emulator URL --key K --in FILE [--passphrase P]
      Save one API key's state (interactions, environments with their sandboxes' files, agents,
      webhooks, triggers, credentials) to a file, or load such a file into an emulator that lacks its
      IDs. Secrets go along only with --include-secrets, sealed with the passphrase (also read from
      EMULATOR_STATE_PASSPHRASE). The key defaults to GEMINI_API_KEY. docs/state-snapshots.md.
  hooks coverage --emulator URL --key KEY [--environment ID] [--since TIME] [--fail-on-unexercised]
                 [--fail-on-unmatched-tools] [--json]
      Print the emulator's hook coverage for that API key (else GEMINI_API_KEY): every rule of every
      hooks.json its calls were evaluated with, at its line, with how often it matched, allowed,
      denied, failed open and failed. --fail-on-unexercised: exit 1 naming each rule never matched,
      never run, only failed (open), or whose deny was never taken; --fail-on-unmatched-tools: exit 1
      when a built-in tool was matched by no rule. Disabled groups never fail.

  start [--port PORT] [--host HOST] [--data-dir DIR]
      Start the emulator (Docker needed; the sandbox image is built on first use) and print its URL.
      Other settings are environment variables (docs/configuration.md). Ctrl-C stops it.

Exit status: 0 ok (allowed), 1 errors or failure, 2 denied by a hook, 64 wrong usage, 130 interrupted.
`;

export class UsageError extends Error {}
