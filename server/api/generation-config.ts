// `generation_config` of a model interaction, as the SDK types it (GenerationConfig in genai.d.ts): each
// known field is checked for its type, so a mistake is a 400 naming the field, and the whole object is
// echoed on the Interaction as sent. The emulated model is scripted: it uses none of these settings.
// [choice] Only a model interaction's is checked: an agent interaction has no generation_config in the
// SDK, so there it stays an unknown field, tolerated and echoed as before.

import { z } from "zod";
import { toInvalidArgument } from "./zod-issues.js";

const speechConfig = z.looseObject({ language: z.string().optional(), speaker: z.string().optional(), voice: z.string().optional() });

export const generationConfigSchema = z.looseObject({
  max_output_tokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).optional(),
  top_p: z.number().min(0).max(1).optional(),
  thinking_level: z.string().optional().describe("minimal, low, medium, high, xhigh"),
  thinking_summaries: z.string().optional().describe("auto or none"),
  tool_choice: z
    .union([
      z.string().describe("auto, any, none or validated"),
      z.looseObject({
        allowed_tools: z.looseObject({ mode: z.string().optional(), tools: z.array(z.string()).optional() }).optional(),
      }),
    ])
    .optional(),
  speech_config: z.union([z.looseObject({ speakers: z.array(speechConfig).optional() }), z.array(speechConfig)]).optional(),
  image_config: z.looseObject({ aspect_ratio: z.string().optional(), image_size: z.string().optional() }).optional(),
  transcription_config: z
    .looseObject({
      adaptation_phrases: z.array(z.string()).optional(),
      custom_vocabulary: z.array(z.string()).optional(),
      diarization_mode: z.string().optional(),
    })
    .optional(),
  video_config: z.looseObject({}).optional(),
});

/** Refuses a generation_config that does not fit the SDK's type, naming the fields that do not (400). */
export function checkGenerationConfig(value: unknown): void {
  if (value === undefined) return;
  const parsed = generationConfigSchema.safeParse(value);
  if (!parsed.success) throw toInvalidArgument(parsed.error, ["generation_config"]);
}
