// An InteractionService over an in-memory store whose one environment is a fake sandbox: for tests of
// how interactions run and what they store, without Docker.

import type { EnvironmentService } from "../../server/environments/environment-service.js";
import { EnvironmentStore, type EnvironmentRecord } from "../../server/environments/environment-store.js";
import { EventStore } from "../../server/interactions/event-store.js";
import { InteractionService, type InteractionServiceOptions } from "../../server/interactions/interaction-service.js";
import { InteractionStore } from "../../server/interactions/interaction-store.js";
import { openMemoryDatabase, type Db } from "../../server/store/database.js";
import { FakeSandboxChannel } from "./fake-sandbox-channel.js";

export const FAKE_LIMITS = { timeoutMs: 5_000, maxOutputBytes: 1024 * 1024 };

export interface FakeInteractionService {
  service: InteractionService;
  interactions: InteractionStore;
  channel: FakeSandboxChannel;
  db: Db;
  /** What the service asked its environments for: the environment inputs it planned, and channels opened. */
  planned: unknown[];
  channelsOpened: number;
}

/** `options`: settings of the service besides its limits (e.g. maxInteractionOutputBytes). */
export function serviceWithFakeSandbox(owner: string, options: Partial<InteractionServiceOptions> = {}): FakeInteractionService {
  const db = openMemoryDatabase();
  const environment: EnvironmentRecord = {
    id: "env_fake",
    owner,
    status: "active",
    sandboxId: "fake",
    config: { sources: [] },
    created: "t",
    updated: "t",
    lastAccessed: "t",
  };
  new EnvironmentStore(db).insert(environment);
  const channel = new FakeSandboxChannel();
  const interactions = new InteractionStore(db);
  const fake = { interactions, channel, db, planned: [] as unknown[], channelsOpened: 0 } as FakeInteractionService;
  // Only what the interaction service asks of its environments, recorded.
  const environments = {
    plan: async (_owner: string, input: unknown) => {
      fake.planned.push(input);
      return async () => environment;
    },
    channel: async () => {
      fake.channelsOpened++;
      return channel;
    },
    using: <T>(_id: string, work: () => Promise<T>) => work(),
  } as unknown as EnvironmentService;
  fake.service = new InteractionService(interactions, new EventStore(db), environments, { limits: FAKE_LIMITS, ...options });
  return fake;
}
