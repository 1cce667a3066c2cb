// A loopback stand-in for an OpenAI-compatible server: POST /v1/chat/completions as the official
// client sends it, answered from a per-test script in the real wire shapes (SSE chat.completion.chunk
// events ending in `data: [DONE]`, or one chat.completion without `stream`). It checks each request
// as OpenAI would (headers, fields, the tool call / tool result pairing) and records what broke the
// protocol in `problems`, answering it with a 400 like the real server; close() fails when there were
// any, so a test cannot pass on a request the real protocol refuses.

import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface ScriptedToolCall {
  /** Left out of the stream when absent, as some local servers do. */
  id?: string;
  name: string;
  /** The arguments text in the pieces it streams in. */
  argumentPieces: string[];
}

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens?: number;
}

export type FakeOpenAiStep =
  /** An answer: text in pieces, reasoning in pieces (under reasoningField), tool calls in fragments. */
  | {
      kind: "answer";
      text?: string[];
      reasoning?: string[];
      reasoningField?: "reasoning_content" | "reasoning";
      toolCalls?: ScriptedToolCall[];
      /** null: no usage even when asked for it. Default: counts made up from the pieces. */
      usage?: ScriptedUsage | null;
      finishReason?: string;
      /** The stream waits for it before its finish chunk, so a test sees the deltas before the end. */
      holdBeforeFinish?: Promise<void>;
    }
  /** An error answer: status and body (an object is sent as JSON, a string as text/plain). */
  | { kind: "status"; status: number; body: unknown }
  /** Headers never come; the socket stays open until the client gives up. */
  | { kind: "hang" }
  /** The stream starts (headers and these chunks' deltas of text) and then stalls. */
  | { kind: "stall"; textBefore: string[] }
  /** The socket is destroyed: before any answer, or after these text deltas. */
  | { kind: "close"; textBefore?: string[] }
  /** A 200 event stream of whatever `data:` payloads are given, sent as they are, then [DONE] unless told not to. */
  | { kind: "raw"; data: unknown[]; done?: boolean }
  /**
   * A hostile server: text deltas of `piece` without end, as fast as the client reads them, until the
   * client closes the connection (or `giveUpBytes`, default 2 GiB, have been sent, so a test never runs forever).
   */
  | { kind: "endless"; piece: string; giveUpBytes?: number; sent?: { bytes: number } };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it did not parse). */
  body: any;
}

export interface FakeOpenAiServer {
  /** The base URL to give the client: http://127.0.0.1:<port>/v1. */
  url: string;
  /** The emulator's settings that put this server behind the agent: the model `openai:fake-model` at `url`. */
  agentSettings: { EMULATOR_AGENT_MODEL: string; EMULATOR_OPENAI_BASE_URL: string };
  requests: RecordedRequest[];
  /** What the requests did that the real protocol would refuse; empty when all was well. */
  problems: string[];
  /** Queues steps; each request takes the next one (a request with none left is a problem). */
  script(...steps: FakeOpenAiStep[]): void;
  /** Resolves when the client has closed the connection of the request with this index. */
  disconnected(requestIndex: number): Promise<void>;
  close(): Promise<void>;
}

export interface FakeOpenAiOptions {
  /** The key the server accepts; other keys get OpenAI's 401. Absent: any bearer token is accepted. */
  apiKey?: string;
}

export async function startFakeOpenAiServer(options: FakeOpenAiOptions = {}): Promise<FakeOpenAiServer> {
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  const steps: FakeOpenAiStep[] = [];
  const disconnects: Array<Promise<void>> = [];
  const sockets = new Set<Socket>();

  const server = http.createServer((request, response) => {
    const index = requests.length;
    disconnects[index] = new Promise<void>((resolve) => response.on("close", () => resolve()));
    readBody(request).then((text) => {
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      requests.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body });
      if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
        problems.push(`request ${index}: ${request.method} ${request.url} is not POST /v1/chat/completions`);
        return sendError(response, 404, `Unknown request URL: ${request.method} ${request.url}`, "invalid_request_error");
      }
      const authorization = request.headers.authorization ?? "";
      if (!/^Bearer \S+$/.test(authorization)) problems.push(`request ${index}: authorization is ${JSON.stringify(authorization)}`);
      if (options.apiKey !== undefined && authorization !== `Bearer ${options.apiKey}`) {
        return sendError(response, 401, `Incorrect API key provided: ${authorization.replace(/^Bearer /, "")}`, "invalid_request_error");
      }
      const found = [...headerProblems(request.headers), ...(body === undefined ? ["the body is not JSON"] : bodyProblems(body))];
      if (found.length > 0) {
        problems.push(...found.map((problem) => `request ${index}: ${problem}`));
        return sendError(response, 400, found.join("; "), "invalid_request_error");
      }
      const step = steps.shift();
      if (!step) {
        problems.push(`request ${index}: nothing scripted for it`);
        return sendError(response, 500, "fake-openai: nothing scripted for this request", "server_error");
      }
      void answer(step, body, response);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    agentSettings: { EMULATOR_AGENT_MODEL: "openai:fake-model", EMULATOR_OPENAI_BASE_URL: url },
    requests,
    problems,
    script: (...more) => steps.push(...more),
    disconnected: async (requestIndex) => {
      while (disconnects[requestIndex] === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      return disconnects[requestIndex];
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (problems.length > 0) throw new Error(`the fake OpenAI server saw requests the real protocol refuses:\n${problems.join("\n")}`);
      if (steps.length > 0) throw new Error(`the fake OpenAI server has ${steps.length} scripted answer(s) no request took`);
    },
  };
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function sendError(response: http.ServerResponse, status: number, message: string, type: string): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
}

async function answer(step: FakeOpenAiStep, body: any, response: http.ServerResponse): Promise<void> {
  const streaming = body.stream === true;
  const includeUsage = body.stream_options?.include_usage === true;
  switch (step.kind) {
    case "status": {
      const json = typeof step.body !== "string";
      response.writeHead(step.status, { "content-type": json ? "application/json" : "text/plain" });
      response.end(json ? JSON.stringify(step.body) : step.body);
      return;
    }
    case "hang":
      return;
    case "close":
      if (step.textBefore) {
        startEventStream(response);
        for (const piece of step.textBefore) sendEvent(response, chunk(body.model, { content: piece }, null));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      response.socket?.destroy();
      return;
    case "stall":
      startEventStream(response);
      for (const piece of step.textBefore) sendEvent(response, chunk(body.model, { content: piece }, null));
      return;
    case "raw":
      startEventStream(response);
      for (const data of step.data) response.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
      if (step.done !== false) response.write("data: [DONE]\n\n");
      response.end();
      return;
    case "endless": {
      startEventStream(response);
      const frame = `data: ${JSON.stringify(chunk(body.model, { content: step.piece }, null))}\n\n`;
      const giveUp = step.giveUpBytes ?? 2 * 1024 * 1024 * 1024;
      let sent = 0;
      while (!response.destroyed && !response.writableEnded && sent < giveUp) {
        sent += frame.length;
        if (step.sent) step.sent.bytes = sent;
        if (!response.write(frame)) {
          await new Promise((resolve) => {
            response.once("drain", resolve);
            response.once("close", resolve);
          });
        }
      }
      response.end();
      return;
    }
    case "answer":
      if (!streaming) return sendCompletion(step, body, response);
      return streamAnswer(step, body.model, includeUsage, response);
  }
}

async function streamAnswer(
  step: Extract<FakeOpenAiStep, { kind: "answer" }>,
  model: string,
  includeUsage: boolean,
  response: http.ServerResponse,
) {
  startEventStream(response);
  const field = step.reasoningField ?? "reasoning_content";
  sendEvent(response, chunk(model, { role: "assistant", content: "" }, null));
  for (const piece of step.reasoning ?? []) sendEvent(response, chunk(model, { content: null, [field]: piece }, null));
  for (const piece of step.text ?? []) {
    sendEvent(response, chunk(model, { content: piece }, null));
    // A pause between pieces, so that each really is a write of its own.
    await new Promise((resolve) => setImmediate(resolve));
  }
  for (const [index, call] of (step.toolCalls ?? []).entries()) {
    const first = { index, ...(call.id ? { id: call.id } : {}), type: "function", function: { name: call.name, arguments: "" } };
    sendEvent(response, chunk(model, { tool_calls: [first] }, null));
    for (const piece of call.argumentPieces)
      sendEvent(response, chunk(model, { tool_calls: [{ index, function: { arguments: piece } }] }, null));
  }
  if (step.holdBeforeFinish) await step.holdBeforeFinish;
  sendEvent(response, chunk(model, {}, step.finishReason ?? (step.toolCalls?.length ? "tool_calls" : "stop")));
  const usage = usageOf(step);
  if (includeUsage && usage) sendEvent(response, { ...chunkFrame(model), choices: [], usage });
  response.write("data: [DONE]\n\n");
  response.end();
}

function sendCompletion(step: Extract<FakeOpenAiStep, { kind: "answer" }>, body: any, response: http.ServerResponse): void {
  const calls = (step.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_fake_${index}`,
    type: "function",
    function: { name: call.name, arguments: call.argumentPieces.join("") },
  }));
  const text = (step.text ?? []).join("");
  const message = {
    role: "assistant",
    content: text === "" && calls.length > 0 ? null : text,
    refusal: null,
    ...(calls.length ? { tool_calls: calls } : {}),
  };
  response.writeHead(200, { "content-type": "application/json" });
  response.end(
    JSON.stringify({
      ...chunkFrame(body.model),
      object: "chat.completion",
      choices: [{ index: 0, message, logprobs: null, finish_reason: step.finishReason ?? (calls.length ? "tool_calls" : "stop") }],
      usage: usageOf(step) ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    }),
  );
}

function usageOf(step: Extract<FakeOpenAiStep, { kind: "answer" }>): Record<string, unknown> | null {
  if (step.usage === null) return null;
  const usage = step.usage ?? { prompt_tokens: 10, completion_tokens: (step.text ?? []).length + (step.toolCalls ?? []).length };
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    ...(usage.reasoning_tokens === undefined ? {} : { completion_tokens_details: { reasoning_tokens: usage.reasoning_tokens } }),
  };
}

function startEventStream(response: http.ServerResponse): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  response.flushHeaders();
}

function sendEvent(response: http.ServerResponse, data: unknown): void {
  response.write(`data: ${JSON.stringify(data)}\n\n`);
}

function chunkFrame(model: string) {
  return { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_700_000_000, model, system_fingerprint: "fp_fake" };
}

function chunk(model: string, delta: Record<string, unknown>, finishReason: string | null) {
  return { ...chunkFrame(model), choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] };
}

// ---- What OpenAI's chat completions endpoint accepts (the subset of its reference a client may send).

const TOP_LEVEL_FIELDS = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "temperature",
  "top_p",
  "seed",
  "max_tokens",
  "max_completion_tokens",
  "stop",
  "reasoning_effort",
  "response_format",
  "n",
  "user",
  "frequency_penalty",
  "presence_penalty",
  "logprobs",
  "top_logprobs",
]);
const REASONING_EFFORTS = new Set(["none", "minimal", "low", "medium", "high", "xhigh"]);
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function headerProblems(headers: http.IncomingHttpHeaders): string[] {
  const problems: string[] = [];
  if (!/^application\/json\b/.test(headers["content-type"] ?? "")) problems.push(`content-type is ${headers["content-type"]}`);
  return problems;
}

function bodyProblems(body: any): string[] {
  const problems: string[] = [];
  const fail = (problem: string) => problems.push(problem);
  if (typeof body !== "object" || body === null || Array.isArray(body)) return ["the body is not a JSON object"];
  for (const key of Object.keys(body)) if (!TOP_LEVEL_FIELDS.has(key)) fail(`unknown field ${key}`);
  if (typeof body.model !== "string" || body.model === "") fail("model must be a non-empty string");
  if (body.stream !== undefined && typeof body.stream !== "boolean") fail("stream must be a boolean");
  if (body.stream_options !== undefined) {
    if (body.stream !== true) fail("stream_options is only allowed when stream is true");
    if (typeof body.stream_options?.include_usage !== "boolean") fail("stream_options.include_usage must be a boolean");
  }
  messageProblems(body.messages, fail);
  if (body.tools !== undefined) toolProblems(body.tools, fail);
  numberInRange(body.temperature, "temperature", 0, 2, fail);
  numberInRange(body.top_p, "top_p", 0, 1, fail);
  if (body.seed !== undefined && !Number.isInteger(body.seed)) fail("seed must be an integer");
  if (body.max_tokens !== undefined && !(Number.isInteger(body.max_tokens) && body.max_tokens > 0))
    fail("max_tokens must be a positive integer");
  if (body.stop !== undefined) {
    const valid =
      typeof body.stop === "string" ||
      (Array.isArray(body.stop) && body.stop.length <= 4 && body.stop.every((s: unknown) => typeof s === "string"));
    if (!valid) fail("stop must be a string or up to 4 strings");
  }
  if (body.reasoning_effort !== undefined && !REASONING_EFFORTS.has(body.reasoning_effort))
    fail(`reasoning_effort ${body.reasoning_effort} is not one of its values`);
  if (body.response_format !== undefined) responseFormatProblems(body.response_format, fail);
  return problems;
}

function numberInRange(value: unknown, name: string, min: number, max: number, fail: (problem: string) => void): void {
  if (value === undefined) return;
  if (typeof value !== "number" || value < min || value > max) fail(`${name} must be a number from ${min} to ${max}`);
}

function messageProblems(messages: unknown, fail: (problem: string) => void): void {
  if (!Array.isArray(messages) || messages.length === 0) return fail("messages must be a non-empty array");
  // The tool_calls of the last assistant message that no tool message has answered yet.
  let unanswered = new Set<string>();
  for (const [index, message] of messages.entries()) {
    const where = `messages[${index}]`;
    if (typeof message !== "object" || message === null) return fail(`${where} is not an object`);
    const role = message.role;
    if (role !== "tool" && unanswered.size > 0)
      fail(`${where}: tool_calls ${[...unanswered].join(", ")} have no tool message answering them`);
    if (role !== "tool") unanswered = new Set();
    switch (role) {
      case "system":
      case "developer":
      case "user":
        if (!textContent(message.content)) fail(`${where}: content must be a string or text parts`);
        break;
      case "assistant": {
        const calls = message.tool_calls;
        if (calls !== undefined) {
          if (!Array.isArray(calls) || calls.length === 0) fail(`${where}: tool_calls must be a non-empty array`);
          for (const call of Array.isArray(calls) ? calls : []) {
            const valid =
              typeof call?.id === "string" &&
              call.type === "function" &&
              typeof call.function?.name === "string" &&
              FUNCTION_NAME.test(call.function.name) &&
              typeof call.function?.arguments === "string";
            if (!valid)
              fail(`${where}: a tool call must be {id, type: "function", function: {name, arguments: string}}: ${JSON.stringify(call)}`);
            else unanswered.add(call.id);
          }
        }
        const content = message.content;
        if (content === null || content === undefined) {
          if (calls === undefined) fail(`${where}: content is required unless tool_calls is given`);
        } else if (!textContent(content)) fail(`${where}: content must be a string, text parts or null`);
        break;
      }
      case "tool":
        if (typeof message.tool_call_id !== "string") fail(`${where}: tool_call_id must be a string`);
        else if (!unanswered.delete(message.tool_call_id)) {
          fail(`${where}: tool_call_id ${message.tool_call_id} answers no tool call of the assistant message before it`);
        }
        if (!textContent(message.content)) fail(`${where}: content must be a string or text parts`);
        break;
      default:
        fail(`${where}: role ${JSON.stringify(role)} is not system, developer, user, assistant or tool`);
    }
  }
  if (unanswered.size > 0)
    fail(`tool_calls ${[...unanswered].join(", ")} of the last assistant message have no tool message answering them`);
}

function textContent(content: unknown): boolean {
  if (typeof content === "string") return true;
  return Array.isArray(content) && content.every((part) => part?.type === "text" && typeof part.text === "string");
}

function toolProblems(tools: unknown, fail: (problem: string) => void): void {
  if (!Array.isArray(tools) || tools.length === 0) return fail("tools must be a non-empty array ([] is too short)");
  for (const [index, tool] of tools.entries()) {
    const fn = tool?.function;
    if (tool?.type !== "function" || typeof fn !== "object" || fn === null) {
      fail(`tools[${index}] must be {type: "function", function: {...}}`);
      continue;
    }
    if (typeof fn.name !== "string" || !FUNCTION_NAME.test(fn.name))
      fail(`tools[${index}].function.name ${JSON.stringify(fn.name)} is not a valid name`);
    if (fn.description !== undefined && typeof fn.description !== "string") fail(`tools[${index}].function.description must be a string`);
    if (fn.parameters !== undefined && (typeof fn.parameters !== "object" || fn.parameters === null || Array.isArray(fn.parameters))) {
      fail(`tools[${index}].function.parameters must be a JSON Schema object`);
    }
  }
}

function responseFormatProblems(format: any, fail: (problem: string) => void): void {
  if (format?.type === "text" || format?.type === "json_object") return;
  if (format?.type !== "json_schema")
    return fail(`response_format.type ${JSON.stringify(format?.type)} is not text, json_object or json_schema`);
  const schema = format.json_schema;
  if (typeof schema?.name !== "string" || !FUNCTION_NAME.test(schema.name))
    fail("response_format.json_schema.name must match ^[a-zA-Z0-9_-]{1,64}$");
  if (schema?.schema !== undefined && (typeof schema.schema !== "object" || schema.schema === null))
    fail("response_format.json_schema.schema must be an object");
  if (schema?.strict !== undefined && schema.strict !== null && typeof schema.strict !== "boolean")
    fail("response_format.json_schema.strict must be a boolean");
}
