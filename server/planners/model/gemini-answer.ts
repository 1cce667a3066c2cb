// Reads the chunks of a streamGenerateContent answer into a ModelAnswer, passing text and thoughts to
// the sink as they come. The SDK hands the chunks over as parsed JSON without checking their shape, so
// every field is checked here: what is not the protocol is a `server` failure, never a crash.

import { type ModelAnswer, ModelBackendError, type ModelStreamSink, type ModelToolCall, type ModelUsage } from "./model-backend.js";

/** What a finishReason or blockReason with nothing in the answer asks of the user. */
const EMPTY_ANSWER_FIXES: Readonly<Record<string, string>> = {
  MAX_TOKENS: "raise max_output_tokens (the model spent them before answering)",
  SAFETY: "the safety filter withheld the answer; rephrase the input",
  RECITATION: "the answer was withheld as recitation of training data; rephrase the input",
  MALFORMED_FUNCTION_CALL: "the model wrote a function call Gemini could not parse; retry, or simplify the functions' schemas",
};
const DEFAULT_EMPTY_FIX = "retry, or rephrase the input";

export class GeminiAnswerReader {
  private text = "";
  private thought = "";
  private readonly calls: ModelToolCall[] = [];
  private usage: ModelUsage = { input: 0, output: 0, thought: 0 };
  private chunks = 0;
  private finishReason: string | undefined;
  private blockReason: string | undefined;

  /**
   * @param turn the number of messages before this answer: the `<turn>` of the IDs made for calls
   *   that come without one (`call_<turn>_<index>`), so that a replayed conversation has the same IDs.
   */
  constructor(
    private readonly model: string,
    private readonly turn: number,
    private readonly sink: ModelStreamSink,
  ) {}

  /** One chunk of the stream, as the SDK parsed it. */
  add(chunk: unknown): void {
    if (!isRecord(chunk)) throw this.notTheProtocol("a chunk that is not a JSON object");
    this.chunks += 1;
    const feedback = chunk["promptFeedback"];
    if (isRecord(feedback) && typeof feedback["blockReason"] === "string") this.blockReason = feedback["blockReason"];
    if (chunk["usageMetadata"] !== undefined) this.usage = this.readUsage(chunk["usageMetadata"]);
    const candidates = chunk["candidates"];
    if (candidates === undefined) return;
    if (!Array.isArray(candidates)) throw this.notTheProtocol("candidates that is not an array");
    // One candidate is asked for (candidateCount is never set); any others are ignored.
    const candidate: unknown = candidates[0];
    if (candidate === undefined) return;
    if (!isRecord(candidate)) throw this.notTheProtocol("a candidate that is not an object");
    if (typeof candidate["finishReason"] === "string") this.finishReason = candidate["finishReason"];
    const content = candidate["content"];
    if (content === undefined) return;
    if (!isRecord(content)) throw this.notTheProtocol("a candidate content that is not an object");
    const parts = content["parts"];
    if (parts === undefined) return;
    if (!Array.isArray(parts)) throw this.notTheProtocol("content.parts that is not an array");
    for (const part of parts) this.readPart(part);
  }

  /** The whole answer, once the stream has ended. */
  finish(): ModelAnswer {
    if (this.chunks === 0) throw this.notTheProtocol("a stream with no chunks");
    const nothing = this.text === "" && this.calls.length === 0;
    if (this.blockReason !== undefined && nothing) {
      throw this.empty(`the prompt was blocked (blockReason ${this.blockReason})`, this.blockReason);
    }
    if (this.finishReason === undefined) {
      throw new ModelBackendError(
        "server",
        `gemini model ${this.model}: the answer stream ended without a finishReason (cut short); check the server behind EMULATOR_GEMINI_BASE_URL, or retry`,
      );
    }
    if (nothing) throw this.empty(`finishReason ${this.finishReason}`, this.finishReason);
    const answer: ModelAnswer = { text: this.text, calls: this.calls, usage: this.usage };
    if (this.thought !== "") answer.thought = this.thought;
    return answer;
  }

  private readPart(part: unknown): void {
    if (!isRecord(part)) throw this.notTheProtocol("a part that is not an object");
    const text = part["text"];
    if (text !== undefined) {
      if (typeof text !== "string") throw this.notTheProtocol("a text part whose text is not a string");
      if (text === "") return; // a part that only carries a thoughtSignature
      if (part["thought"] === true) {
        this.thought += text;
        this.sink.thought(text);
      } else {
        this.text += text;
        this.sink.text(text);
      }
      return;
    }
    const call = part["functionCall"];
    if (call !== undefined) {
      const read = this.readCall(call);
      const signature = part["thoughtSignature"];
      if (typeof signature === "string" && signature !== "") read.signature = signature;
      this.calls.push(read);
    }
    // Other parts (executableCode, inlineData...) answer tools this backend never declares: ignored.
  }

  private readCall(call: unknown): ModelToolCall {
    if (!isRecord(call) || typeof call["name"] !== "string" || call["name"] === "") {
      throw this.notTheProtocol("a functionCall without a name");
    }
    const args = call["args"] ?? {};
    if (!isRecord(args)) throw this.notTheProtocol(`a functionCall ${call["name"]} whose args is not an object`);
    const id = typeof call["id"] === "string" && call["id"] !== "" ? call["id"] : `call_${this.turn}_${this.calls.length}`;
    return { id, name: call["name"], arguments: JSON.stringify(args) };
  }

  private readUsage(usage: unknown): ModelUsage {
    if (!isRecord(usage)) throw this.notTheProtocol("usageMetadata that is not an object");
    return {
      input: this.count(usage, "promptTokenCount"),
      output: this.count(usage, "candidatesTokenCount"),
      thought: this.count(usage, "thoughtsTokenCount"),
    };
  }

  private count(usage: Record<string, unknown>, field: string): number {
    const value = usage[field];
    if (value === undefined) return 0;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
      throw this.notTheProtocol(`usageMetadata.${field} that is not a count`);
    }
    return value;
  }

  private empty(why: string, reason: string): ModelBackendError {
    return new ModelBackendError(
      "empty",
      `gemini model ${this.model}: the answer has neither text nor function calls (${why}); ${EMPTY_ANSWER_FIXES[reason] ?? DEFAULT_EMPTY_FIX}`,
    );
  }

  private notTheProtocol(what: string): ModelBackendError {
    return new ModelBackendError(
      "server",
      `gemini model ${this.model}: the server answered ${what}, which is not the Gemini API; check EMULATOR_GEMINI_BASE_URL`,
    );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
