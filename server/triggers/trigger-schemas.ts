// The Trigger resource's requests as the official SDK sends them (TriggerCreateParams and
// TriggerUpdate in @google/genai 3.3). The interaction is a full interactions.create request, checked
// here only for its shape: what only running it can show is an execution's failure.

import { z } from "zod";
import type { Assignable, Without } from "../wire/assignable.js";
import { createInteractionSchema } from "../api/create-interaction.js";
import type { CreateTriggerRequestBody, RunTriggerRequestBody, UpdateTriggerRequestBody } from "../wire/openapi-types.js";
import { whyNotSchedule, whyNotTimeZone } from "./trigger-schedule.js";

const scheduleSchema = z.string().superRefine((schedule, context) => {
  const why = whyNotSchedule(schedule);
  if (why) context.addIssue({ code: "custom", message: why });
});

const timeZoneSchema = z.string().superRefine((timeZone, context) => {
  const why = whyNotTimeZone(timeZone);
  if (why) context.addIssue({ code: "custom", message: why });
});

/**
 * [choice] A trigger's interaction always runs in the background (nobody is there to read a stream
 * or wait for an answer), and it must be stored, or its execution could never be looked at.
 */
const triggeredInteractionSchema = createInteractionSchema.superRefine((request, context) => {
  if (request.stream === true) {
    context.addIssue({ code: "custom", path: ["stream"], message: "a trigger's interaction runs in the background; leave stream out" });
  }
  if (request.store === false) {
    context.addIssue({
      code: "custom",
      path: ["store"],
      message: "a trigger's interaction must be stored to be seen afterwards; leave store out",
    });
  }
});

export const createTriggerSchema = z.looseObject({
  display_name: z.string().max(512).optional(),
  schedule: scheduleSchema.describe('Standard cron, e.g. "*/5 * * * *"'),
  time_zone: timeZoneSchema.describe("An IANA time zone name"),
  interaction: triggeredInteractionSchema,
  environment_id: z.string().min(1).optional().describe("An environment each execution reuses (instead of the interaction's environment)"),
  execution_timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600)
    .optional(),
  max_consecutive_failures: z.number().int().min(1).max(10_000).optional(),
});
export type CreateTriggerRequest = z.infer<typeof createTriggerSchema>;
/**
 * What each schema lets through is the document's body of the operation (server/wire/assignable.ts); the
 * trigger's interaction is checked as CreateInteraction's (create-interaction.ts).
 */
export type CreateTriggerConforms = Assignable<
  Without<CreateTriggerRequest, "interaction"> & { interaction: CreateTriggerRequestBody["interaction"] },
  CreateTriggerRequestBody
>;

/** PATCH: the SDK's TriggerUpdate. [choice] `error` is set by failures only, never by a client. */
export const updateTriggerSchema = z.looseObject({
  display_name: z.string().max(512).optional(),
  status: z
    .enum(["active", "paused", "error"])
    .refine((status) => status !== "error", 'status can be set to "active" (resume) or "paused"; "error" is set by failed executions')
    .optional(),
});
export type UpdateTriggerRequest = z.infer<typeof updateTriggerSchema>;
export type UpdateTriggerConforms = Assignable<UpdateTriggerRequest, UpdateTriggerRequestBody>;

/**
 * POST …/triggers/{id}/executions (run now): the SDK sends no body, the document attaches none and its
 * RunTriggerRequest has no fields, so the body is an empty object or none (the route names a field it
 * holds as unknown first, in Google's words).
 */
export const runTriggerSchema = z.strictObject({});
export type RunTriggerRequest = z.infer<typeof runTriggerSchema>;
export type RunTriggerConforms = Assignable<RunTriggerRequest, RunTriggerRequestBody>;
