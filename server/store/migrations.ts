// Append only: a migration that has shipped is never edited, a new one is added after it.
export const migrations: readonly string[] = [
  `
  CREATE TABLE environments (
    id            TEXT PRIMARY KEY,
    owner         TEXT NOT NULL,
    status        TEXT NOT NULL,
    sandbox_id    TEXT,
    config        TEXT NOT NULL,
    created       TEXT NOT NULL,
    updated       TEXT NOT NULL,
    last_accessed TEXT NOT NULL
  );
  CREATE INDEX environments_owner ON environments (owner, created);

  CREATE TABLE interactions (
    id                      TEXT PRIMARY KEY,
    owner                   TEXT NOT NULL,
    status                  TEXT NOT NULL,
    environment_id          TEXT REFERENCES environments (id),
    previous_interaction_id TEXT,
    echo                    TEXT NOT NULL,
    errors                  TEXT,
    created                 TEXT NOT NULL,
    updated                 TEXT NOT NULL
  );
  CREATE INDEX interactions_owner ON interactions (owner, created);

  CREATE TABLE steps (
    interaction_id TEXT NOT NULL REFERENCES interactions (id) ON DELETE CASCADE,
    idx            INTEGER NOT NULL,
    step           TEXT NOT NULL,
    PRIMARY KEY (interaction_id, idx)
  );
  `,
  `
  CREATE TABLE hook_traces (
    interaction_id TEXT NOT NULL REFERENCES interactions (id) ON DELETE CASCADE,
    idx            INTEGER NOT NULL,
    trace          TEXT NOT NULL,
    PRIMARY KEY (interaction_id, idx)
  );
  `,
  `
  CREATE TABLE credentials (
    owner       TEXT NOT NULL,
    id          TEXT NOT NULL,
    type        TEXT NOT NULL,
    status      TEXT NOT NULL,
    config      TEXT NOT NULL,
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL,
    PRIMARY KEY (owner, id)
  );

  CREATE TABLE egress_log (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    environment_id TEXT NOT NULL,
    time           TEXT NOT NULL,
    entry          TEXT NOT NULL
  );
  CREATE INDEX egress_log_environment ON egress_log (environment_id, seq);
  `,
  `
  CREATE TABLE interaction_events (
    interaction_id TEXT NOT NULL REFERENCES interactions (id) ON DELETE CASCADE,
    seq            INTEGER NOT NULL,
    event          TEXT NOT NULL,
    PRIMARY KEY (interaction_id, seq)
  );
  CREATE INDEX interactions_status ON interactions (status);
  `,
  `
  -- The agent's planner state after a run (JSON), for a later interaction that continues it.
  ALTER TABLE interactions ADD COLUMN planner_state TEXT;
  `,
  `
  -- How the input was given and how many steps record it (JSON), for GET ?include_input=true.
  ALTER TABLE interactions ADD COLUMN input_shape TEXT;
  `,
  `
  -- The interaction's token usage (JSON, the SDK's Usage), so GET returns the same counts after a restart.
  ALTER TABLE interactions ADD COLUMN usage TEXT;
  `,
  `
  -- Custom agents (issue 19): each owner's definitions (JSON, the SDK's Agent as created).
  CREATE TABLE agents (
    owner       TEXT NOT NULL,
    id          TEXT NOT NULL,
    definition  TEXT NOT NULL,
    create_time TEXT NOT NULL,
    PRIMARY KEY (owner, id)
  );
  -- The definition each interaction ran with, so its continuations outlive the agent's deletion.
  CREATE TABLE agent_uses (
    interaction_id TEXT PRIMARY KEY REFERENCES interactions (id) ON DELETE CASCADE,
    owner          TEXT NOT NULL,
    agent_id       TEXT NOT NULL,
    definition     TEXT NOT NULL
  );
  `,
  `
  -- Triggers (docs/triggers.md): each row the whole trigger as JSON, with what is looked up by beside it.
  CREATE TABLE triggers (
    id          TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    status      TEXT NOT NULL,
    record      TEXT NOT NULL
  );
  CREATE INDEX triggers_owner ON triggers (owner, id);

  CREATE TABLE trigger_executions (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    trigger_id  TEXT NOT NULL REFERENCES triggers (id) ON DELETE CASCADE,
    status      TEXT NOT NULL,
    record      TEXT NOT NULL
  );
  CREATE INDEX trigger_executions_trigger ON trigger_executions (trigger_id, seq);
  CREATE INDEX trigger_executions_status ON trigger_executions (status);
  `,
  `
  -- Webhooks (server/webhooks): the registered endpoints, their signing secrets (a secret with an
  -- expire_ms stops signing once the emulator's clock passes it) and every delivery with its attempts,
  -- so a pending one is scheduled again at start.
  CREATE TABLE webhooks (
    owner             TEXT NOT NULL,
    id                TEXT NOT NULL,
    name              TEXT,
    uri               TEXT NOT NULL,
    subscribed_events TEXT NOT NULL,
    state             TEXT NOT NULL,
    create_time       TEXT NOT NULL,
    update_time       TEXT NOT NULL,
    PRIMARY KEY (owner, id)
  );
  CREATE TABLE webhook_secrets (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    owner       TEXT NOT NULL,
    webhook_id  TEXT NOT NULL,
    secret      TEXT NOT NULL,
    expire_ms   INTEGER,
    FOREIGN KEY (owner, webhook_id) REFERENCES webhooks (owner, id) ON DELETE CASCADE
  );
  CREATE INDEX webhook_secrets_webhook ON webhook_secrets (owner, webhook_id, seq);
  CREATE TABLE webhook_deliveries (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT NOT NULL UNIQUE,
    owner            TEXT NOT NULL,
    webhook_id       TEXT,
    uri              TEXT NOT NULL,
    event_type       TEXT NOT NULL,
    body             TEXT NOT NULL,
    status           TEXT NOT NULL,
    retries          INTEGER NOT NULL,
    first_attempt_ms INTEGER NOT NULL,
    next_attempt_ms  INTEGER,
    attempts         TEXT NOT NULL,
    create_time      TEXT NOT NULL
  );
  CREATE INDEX webhook_deliveries_owner ON webhook_deliveries (owner, seq);
  CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (status);
  `,
  `
  -- Hook coverage (server/coverage, docs/hooks-coverage.md): each distinct hooks.json content an
  -- owner's hooks were evaluated with, once (by SHA-256, at most 64 per owner), and counters per
  -- (owner, environment, time bucket, content, path, rule, handler, tool, outcome): a bucket is a
  -- minute for the last day and a day before that, so the table grows with the time hooks ran and the
  -- rules they have, never with the number of calls. Kept apart from the interactions, so store: false
  -- runs count and deleting an interaction leaves its coverage.
  CREATE TABLE hook_coverage_files (
    owner         TEXT NOT NULL,
    sha256        TEXT NOT NULL,
    text          TEXT NOT NULL,
    bytes         INTEGER NOT NULL,
    first_seen_ms INTEGER NOT NULL,
    last_seen_ms  INTEGER NOT NULL,
    PRIMARY KEY (owner, sha256)
  );
  CREATE TABLE hook_coverage_counts (
    owner          TEXT NOT NULL,
    environment_id TEXT NOT NULL,
    bucket_ms      INTEGER NOT NULL,
    bucket_span_ms INTEGER NOT NULL,
    sha256         TEXT NOT NULL,
    path           TEXT NOT NULL,
    group_name     TEXT NOT NULL,
    event          TEXT NOT NULL,
    rule_index     INTEGER NOT NULL,
    handler_index  INTEGER NOT NULL,
    tool_name      TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    count          INTEGER NOT NULL,
    PRIMARY KEY (owner, environment_id, bucket_ms, sha256, path, group_name, event, rule_index, handler_index, tool_name, outcome)
  ) WITHOUT ROWID;
  CREATE INDEX hook_coverage_counts_owner_bucket ON hook_coverage_counts (owner, bucket_ms);
  `,
];
