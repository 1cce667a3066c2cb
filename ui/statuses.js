// The statuses an interaction can have, for the dashboard's filter: the same list as the server's
// INTERACTION_STATUSES (server/agent/steps.ts), which the browser cannot import; a unit test
// (test/unit/ui-format.test.ts) fails when the two differ.

export const STATUSES = [
  "queued",
  "in_progress",
  "requires_action",
  "requires_continuation",
  "completed",
  "incomplete",
  "failed",
  "cancelled",
  "budget_exceeded",
];
