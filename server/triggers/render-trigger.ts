// The wire shapes of the SDK's Trigger and TriggerExecution (@google/genai 3.3, triggers namespace).

import type { Trigger, TriggerExecution } from "../wire/openapi-types.js";
import { timestampOf } from "../common/timestamps.js";
import type { ExecutionRecord, TriggerRecord } from "./trigger-store.js";

export function renderTrigger(record: TriggerRecord): Trigger {
  const { config } = record;
  return {
    id: record.id,
    ...(record.displayName !== undefined ? { display_name: record.displayName } : {}),
    schedule: config.schedule,
    time_zone: config.time_zone,
    // Held to the document when the trigger was created (documented-requests.ts); the schema reads it loosely.
    interaction: config.interaction as Trigger["interaction"],
    ...(config.environment_id !== undefined ? { environment_id: config.environment_id } : {}),
    ...(config.execution_timeout_seconds !== undefined ? { execution_timeout_seconds: config.execution_timeout_seconds } : {}),
    ...(config.max_consecutive_failures !== undefined ? { max_consecutive_failures: config.max_consecutive_failures } : {}),
    status: record.status,
    consecutive_failure_count: record.consecutiveFailures,
    ...(record.nextRunMs !== null ? { next_run_time: timestampOf(record.nextRunMs) } : {}),
    ...(record.lastRunTime ? { last_run_time: record.lastRunTime } : {}),
    ...(record.lastPauseTime ? { last_pause_time: record.lastPauseTime } : {}),
    ...(record.lastResumeTime ? { last_resume_time: record.lastResumeTime } : {}),
    ...(record.previousInteractionId ? { previous_interaction_id: record.previousInteractionId } : {}),
    create_time: record.createTime,
    update_time: record.updateTime,
  };
}

export function renderExecution(record: ExecutionRecord): TriggerExecution {
  return {
    id: record.id,
    trigger_id: record.triggerId,
    status: record.status,
    scheduled_time: record.scheduledTime,
    ...(record.startTime ? { start_time: record.startTime } : {}),
    ...(record.endTime ? { end_time: record.endTime } : {}),
    ...(record.interactionId ? { interaction_id: record.interactionId } : {}),
    ...(record.environmentId ? { environment_id: record.environmentId } : {}),
    ...(record.error ? { error: record.error } : {}),
  };
}
