// The thin payload every delivery carries (the receiver GETs the resource for the rest): the event's
// type, the payload's version, when the event happened on the emulator's clock, and data naming the
// resource, with an interaction's own webhook_config.user_metadata beside its id.

import { isoOf } from "../common/timestamps.js";

export const PAYLOAD_VERSION = "v1";

export interface EventPayload {
  type: string;
  version: string;
  timestamp: string;
  data: { id: string; user_metadata?: Record<string, unknown> };
}

export function eventPayload(type: string, atMs: number, data: EventPayload["data"]): EventPayload {
  return { type, version: PAYLOAD_VERSION, timestamp: isoOf(atMs), data };
}
