// A loopback stand-in for the Gemini API (generativelanguage.googleapis.com) as @google/genai 3.3
// calls it: POST /v1beta/models/{model}:streamGenerateContent?alt=sse (and :generateContent), the key
// in x-goog-api-key, a JSON body in the wire names. It refuses what the real API refuses (an unknown
// field, a function call without its answer, Gemini 3's missing thought signature...) with Google's
// error JSON, and answers from a per-test script: each request takes the next scripted answer or
// fault. Every request is recorded as it arrived. Loopback only.

import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeGeminiCall {
  name: string;
  args?: Record<string, unknown>;
  /** Gemini API models usually give none; the backend then makes one. */
  id?: string;
}

/** One scripted answer, streamed as the real API streams: thoughts, then text, then the calls, then the finish. */
export interface FakeGeminiAnswer {
  thoughts?: string[];
  /** The text's chunks, one SSE event each. */
  text?: string[];
  calls?: FakeGeminiCall[];
  usage?: { promptTokenCount?: number; candidatesTokenCount?: number; thoughtsTokenCount?: number };
  /** The last chunk's finishReason; STOP unless given. */
  finishReason?: string;
  /** promptFeedback.blockReason: the prompt itself was blocked (no candidates at all). */
  blockReason?: string;
  /** A pause before each chunk after the first, so a test can watch the deltas arrive. */
  gapMs?: number;
  /** Close the connection after this many chunks, before the finish. */
  cutAfterChunks?: number;
  /** Send these chunks verbatim instead (for answers that are not the protocol). */
  rawChunks?: unknown[];
}

export type FakeGeminiFault =
  /** An HTTP error with Google's error JSON; `reason` becomes a google.rpc.ErrorInfo detail. */
  | { fault: "status"; code: number; message?: string; reason?: string }
  /** 200, then an error event inside the stream (the API's way of failing after the headers). */
  | { fault: "stream-error"; code: number; message?: string }
  /** Take the request and never answer. */
  | { fault: "hang" }
  /** Close the connection without answering. */
  | { fault: "close" }
  /** 200 text/event-stream whose data is not JSON. */
  | { fault: "garbage" }
  /** 200 with an HTML page, as a captive portal or a misrouted proxy answers. */
  | { fault: "html" };

export type FakeGeminiScript = FakeGeminiAnswer | FakeGeminiFault;

export interface RecordedGeminiRequest {
  method: string;
  path: string;
  search: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: any;
}

export interface FakeGemini {
  url: string;
  apiKey: string;
  requests: RecordedGeminiRequest[];
  /** Why the fake refused requests as the real API would (400s it sent on its own): a test expects none unless it provoked one. */
  refusals: string[];
  script(...answers: FakeGeminiScript[]): void;
  /** Forgets the recorded requests, the refusals and any scripted answer left over (a test that failed early). */
  reset(): void;
  close(): Promise<void>;
}

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

export async function startFakeGeminiServer(apiKey = "fake-gemini-key-0123456789"): Promise<FakeGemini> {
  const requests: RecordedGeminiRequest[] = [];
  const refusals: string[] = [];
  const queue: FakeGeminiScript[] = [];
  let responses = 0;

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://gemini.local");
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      requests.push({ method: request.method ?? "", path: url.pathname, search: url.search, headers: request.headers, body });
      const route = /^\/v1beta\/models\/([a-z0-9][a-z0-9.-]*):(streamGenerateContent|generateContent)$/.exec(url.pathname);
      if (request.method !== "POST" || !route) {
        return sendError(response, 404, `The requested URL ${url.pathname} was not found on this server.`);
      }
      const streaming = route[2] === "streamGenerateContent";
      const model = route[1]!;
      const refusal = checkRequest(request, url, streaming, raw, body, apiKey);
      if (refusal) {
        refusals.push(refusal.message);
        return sendError(response, refusal.code, refusal.message, refusal.reason);
      }
      const next = queue.shift();
      if (!next) {
        refusals.push("no scripted answer left");
        return sendError(response, 500, "fake-gemini: the test scripted no answer for this request");
      }
      responses += 1;
      answer(response, next, model, streaming, `fake-response-${responses}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey,
    requests,
    refusals,
    script: (...answers) => void queue.push(...answers),
    reset: () => {
      requests.length = 0;
      refusals.length = 0;
      queue.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendError(response: http.ServerResponse, code: number, message: string, reason?: string): void {
  const error: Record<string, unknown> = { code, message, status: STATUS_NAMES[code] ?? "UNKNOWN" };
  if (reason) error["details"] = [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "googleapis.com" }];
  response.writeHead(code, { "content-type": "application/json; charset=UTF-8" }).end(JSON.stringify({ error }, null, 2));
}

function answer(response: http.ServerResponse, script: FakeGeminiScript, model: string, streaming: boolean, responseId: string): void {
  if ("fault" in script) return fault(response, script);
  const chunks = script.rawChunks ?? answerChunks(script, model, responseId);
  if (!streaming) {
    // :generateContent answers the same content in one response: the last chunk with every part.
    const parts = chunks.flatMap((chunk: any) => chunk?.candidates?.[0]?.content?.parts ?? []);
    const last: any = structuredClone(chunks.at(-1) ?? {});
    if (last.candidates?.[0]) last.candidates[0].content = { parts, role: "model" };
    response.writeHead(200, { "content-type": "application/json; charset=UTF-8" }).end(JSON.stringify(last));
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const gapMs = script.rawChunks ? 0 : (script.gapMs ?? 0);
  const cut = script.rawChunks ? undefined : script.cutAfterChunks;
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  // A client that gives up (abort, timeout) must not leave a paced answer's timer holding the test process.
  response.on("close", () => clearTimeout(timer));
  const sendNext = (): void => {
    if (response.destroyed) return;
    if (cut !== undefined && sent >= cut) return void response.socket?.destroy();
    if (sent >= chunks.length) return void response.end();
    response.write(`data: ${JSON.stringify(chunks[sent])}\r\n\r\n`);
    sent += 1;
    timer = setTimeout(sendNext, sent < chunks.length ? gapMs : 0);
  };
  sendNext();
}

function fault(response: http.ServerResponse, script: FakeGeminiFault): void {
  switch (script.fault) {
    case "status":
      return sendError(response, script.code, script.message ?? `scripted ${script.code}`, script.reason);
    case "stream-error": {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const error = {
        code: script.code,
        message: script.message ?? `scripted ${script.code}`,
        status: STATUS_NAMES[script.code] ?? "UNKNOWN",
      };
      response.end(`data: ${JSON.stringify({ error })}\r\n\r\n`);
      return;
    }
    case "hang":
      return; // the socket stays open until the client gives up or the fake closes
    case "close":
      return void response.socket?.destroy();
    case "garbage":
      response.writeHead(200, { "content-type": "text/event-stream" }).end("data: {this is not json\r\n\r\n");
      return;
    case "html":
      response.writeHead(200, { "content-type": "text/html" }).end("<html><body>Sign in to the network</body></html>");
      return;
  }
}

/** The chunks of one answer in the real API's shape. */
function answerChunks(script: FakeGeminiAnswer, model: string, responseId: string): unknown[] {
  const prompt = script.usage?.promptTokenCount ?? 0;
  const wrap = (candidate: Record<string, unknown> | undefined, usage: Record<string, unknown>) => ({
    ...(candidate ? { candidates: [{ ...candidate, index: 0 }] } : {}),
    usageMetadata: { ...usage, promptTokensDetails: [{ modality: "TEXT", tokenCount: usage["promptTokenCount"] }] },
    modelVersion: model,
    responseId,
  });
  if (script.blockReason) {
    return [
      {
        promptFeedback: { blockReason: script.blockReason },
        usageMetadata: { promptTokenCount: prompt, totalTokenCount: prompt },
        modelVersion: model,
        responseId,
      },
    ];
  }
  const partGroups: Record<string, unknown>[][] = [
    ...(script.thoughts ?? []).map((text) => [{ text, thought: true }]),
    ...(script.text ?? []).map((text) => [{ text }]),
  ];
  if (script.calls?.length) {
    // Gemini 3 signs the first call of a step; the client must send the signature back with it.
    partGroups.push(
      script.calls.map((call, index) => ({
        functionCall: { ...(call.id ? { id: call.id } : {}), name: call.name, args: call.args ?? {} },
        ...(index === 0 ? { thoughtSignature: Buffer.from(`signature-of-${responseId}`).toString("base64") } : {}),
      })),
    );
  }
  const running = { promptTokenCount: prompt, totalTokenCount: prompt };
  const chunks = partGroups.map((parts) => wrap({ content: { parts, role: "model" } }, running));
  const output = script.usage?.candidatesTokenCount;
  const thoughts = script.usage?.thoughtsTokenCount;
  const finalUsage = {
    promptTokenCount: prompt,
    ...(output !== undefined ? { candidatesTokenCount: output } : {}),
    ...(thoughts !== undefined ? { thoughtsTokenCount: thoughts } : {}),
    totalTokenCount: prompt + (output ?? 0) + (thoughts ?? 0),
  };
  const finish = { finishReason: script.finishReason ?? "STOP" };
  const last = chunks.at(-1) as { candidates: Record<string, unknown>[] } | undefined;
  if (last) {
    // The real API puts the finish and the whole usage on the last content chunk.
    Object.assign(last.candidates[0]!, finish);
    Object.assign(last, wrap(last.candidates[0], finalUsage));
  } else {
    // An answer with nothing in it (a safety stop): one chunk, a candidate with no content.
    chunks.push(wrap(finish, finalUsage));
  }
  return chunks;
}

// ---- What the real API refuses -------------------------------------------------------------------

interface Refusal {
  code: number;
  message: string;
  reason?: string;
}

const TOP_LEVEL = new Set([
  "contents",
  "systemInstruction",
  "generationConfig",
  "tools",
  "toolConfig",
  "safetySettings",
  "cachedContent",
  "serviceTier",
  "store",
]);
const GENERATION_CONFIG = new Set([
  "temperature",
  "topP",
  "topK",
  "candidateCount",
  "maxOutputTokens",
  "stopSequences",
  "seed",
  "responseMimeType",
  "responseSchema",
  "responseJsonSchema",
  "thinkingConfig",
  "presencePenalty",
  "frequencyPenalty",
  "responseLogprobs",
  "logprobs",
  "responseModalities",
  "mediaResolution",
  "speechConfig",
  "imageConfig",
  "enableEnhancedCivicAnswers",
]);
const THINKING_CONFIG = new Set(["includeThoughts", "thinkingBudget", "thinkingLevel"]);
const THINKING_LEVELS = new Set(["MINIMAL", "LOW", "MEDIUM", "HIGH"]);
const CONTENT = new Set(["role", "parts"]);
const PART_DATA = ["text", "functionCall", "functionResponse", "inlineData", "fileData", "executableCode", "codeExecutionResult"];
const PART_EXTRAS = new Set(["thought", "thoughtSignature", "videoMetadata", "partMetadata", "mediaResolution"]);
const FUNCTION_CALL = new Set(["id", "name", "args"]);
const FUNCTION_RESPONSE = new Set(["id", "name", "response", "parts", "willContinue", "scheduling"]);
const TOOL = new Set([
  "functionDeclarations",
  "googleSearch",
  "googleSearchRetrieval",
  "codeExecution",
  "urlContext",
  "fileSearch",
  "googleMaps",
  "computerUse",
  "mcpServers",
]);
const FUNCTION_DECLARATION = new Set([
  "name",
  "description",
  "parameters",
  "parametersJsonSchema",
  "response",
  "responseJsonSchema",
  "behavior",
]);
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/;

function checkRequest(
  request: http.IncomingMessage,
  url: URL,
  streaming: boolean,
  raw: string,
  body: unknown,
  apiKey: string,
): Refusal | undefined {
  const key = request.headers["x-goog-api-key"];
  if (key === undefined) {
    return {
      code: 403,
      message:
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    };
  }
  if (key !== apiKey) return { code: 400, message: "API key not valid. Please pass a valid API key.", reason: "API_KEY_INVALID" };
  if (streaming && url.searchParams.get("alt") !== "sse")
    return invalid("streamGenerateContent without alt=sse would answer a JSON array, not SSE");
  if (!String(request.headers["content-type"] ?? "").startsWith("application/json")) return invalid("the body must be application/json");
  if (!isObject(body)) return invalid(`Invalid JSON payload received. ${raw.slice(0, 40)}`);
  return (
    unknownField(body, TOP_LEVEL, "") ??
    checkContents(body["contents"]) ??
    checkSystemInstruction(body["systemInstruction"]) ??
    checkGenerationConfig(body["generationConfig"]) ??
    checkTools(body["tools"])
  );
}

function invalid(message: string): Refusal {
  return { code: 400, message };
}

function unknownField(value: Record<string, unknown>, known: ReadonlySet<string>, where: string): Refusal | undefined {
  const stray = Object.keys(value).find((name) => !known.has(name));
  return stray === undefined
    ? undefined
    : invalid(`Invalid JSON payload received. Unknown name "${stray}" at '${where}': Cannot find field.`);
}

function checkContents(contents: unknown): Refusal | undefined {
  if (!Array.isArray(contents) || contents.length === 0) return invalid("* GenerateContentRequest.contents: contents is not specified");
  for (const [index, content] of contents.entries()) {
    const where = `contents[${index}]`;
    if (!isObject(content)) return invalid(`${where} is not an object`);
    const refusal = unknownField(content, CONTENT, where) ?? checkParts(content, where);
    if (refusal) return refusal;
  }
  return checkCallPairs(contents) ?? checkThoughtSignatures(contents);
}

function checkParts(content: Record<string, unknown>, where: string): Refusal | undefined {
  const role = content["role"];
  if (role !== "user" && role !== "model")
    return invalid(`Please use a valid role: user, model. (${where}.role is ${JSON.stringify(role)})`);
  const parts = content["parts"];
  if (!Array.isArray(parts) || parts.length === 0)
    return invalid(`* GenerateContentRequest.${where}.parts: contents.parts must not be empty.`);
  for (const [index, part] of parts.entries()) {
    const at = `${where}.parts[${index}]`;
    if (!isObject(part)) return invalid(`${at} is not an object`);
    const data = Object.keys(part).filter((name) => PART_DATA.includes(name));
    const stray = Object.keys(part).find((name) => !PART_DATA.includes(name) && !PART_EXTRAS.has(name));
    if (stray) return invalid(`Invalid JSON payload received. Unknown name "${stray}" at '${at}': Cannot find field.`);
    if (data.length !== 1)
      return invalid(`* GenerateContentRequest.${at}.data: required oneof field 'data' must have one initialized field`);
    if ("text" in part && typeof part["text"] !== "string") return invalid(`${at}.text must be a string`);
    if ("functionCall" in part) {
      const call = part["functionCall"];
      if (role !== "model") return invalid(`${at}: a functionCall part must be in a model content`);
      if (!isObject(call)) return invalid(`${at}.functionCall is not an object`);
      const refusal = unknownField(call, FUNCTION_CALL, `${at}.functionCall`);
      if (refusal) return refusal;
      if (typeof call["name"] !== "string" || call["name"] === "")
        return invalid(`* GenerateContentRequest.${at}.function_call.name: name is not specified`);
      if (call["args"] !== undefined && !isObject(call["args"])) return invalid(`${at}.functionCall.args must be an object`);
    }
    if ("functionResponse" in part) {
      const result = part["functionResponse"];
      if (role !== "user") return invalid(`${at}: a functionResponse part must be in a user content`);
      if (!isObject(result)) return invalid(`${at}.functionResponse is not an object`);
      const refusal = unknownField(result, FUNCTION_RESPONSE, `${at}.functionResponse`);
      if (refusal) return refusal;
      if (typeof result["name"] !== "string" || result["name"] === "")
        return invalid(`* GenerateContentRequest.${at}.function_response.name: name is not specified`);
      if (!isObject(result["response"])) return invalid(`${at}.functionResponse.response must be an object (a Struct)`);
    }
  }
  return undefined;
}

function partsOf(content: unknown): Record<string, unknown>[] {
  return (content as { parts: Record<string, unknown>[] }).parts;
}

/** Each model content's calls are answered by the next content, one functionResponse per call, by name. */
function checkCallPairs(contents: unknown[]): Refusal | undefined {
  for (const [index, content] of contents.entries()) {
    const calls = partsOf(content).flatMap((part) => (isObject(part["functionCall"]) ? [String(part["functionCall"]["name"])] : []));
    if (calls.length === 0) continue;
    const next = contents[index + 1];
    if (next === undefined) continue; // a conversation may end on the model's calls (the API asks nothing of it)
    const results = partsOf(next).flatMap((part) => (isObject(part["functionResponse"]) ? [String(part["functionResponse"]["name"])] : []));
    if (results.length !== calls.length || [...results].sort().join() !== [...calls].sort().join()) {
      return invalid(
        "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
      );
    }
  }
  return undefined;
}

/** Gemini 3: in the current turn (after the last user text), each step's first functionCall part carries a thoughtSignature. */
function checkThoughtSignatures(contents: unknown[]): Refusal | undefined {
  let start = 0;
  contents.forEach((content, index) => {
    if ((content as { role: string }).role === "user" && partsOf(content).some((part) => typeof part["text"] === "string")) start = index;
  });
  for (const [offset, content] of contents.slice(start).entries()) {
    const first = partsOf(content).find((part) => "functionCall" in part);
    if (first && typeof first["thoughtSignature"] !== "string") {
      return invalid(
        `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String((first["functionCall"] as Record<string, unknown>)["name"])}\` , position ${start + offset + 1}.`,
      );
    }
  }
  return undefined;
}

function checkSystemInstruction(system: unknown): Refusal | undefined {
  if (system === undefined) return undefined;
  if (!isObject(system)) return invalid("systemInstruction is not a Content");
  const refusal = unknownField(system, CONTENT, "system_instruction");
  if (refusal) return refusal;
  const parts = system["parts"];
  if (!Array.isArray(parts) || parts.length === 0 || !parts.every((part) => isObject(part) && typeof part["text"] === "string")) {
    return invalid("systemInstruction.parts must be text parts");
  }
  return undefined;
}

function checkGenerationConfig(config: unknown): Refusal | undefined {
  if (config === undefined) return undefined;
  if (!isObject(config)) return invalid("generationConfig is not an object");
  const refusal = unknownField(config, GENERATION_CONFIG, "generation_config");
  if (refusal) return refusal;
  const number = (name: string, min: number, max: number, integer = false): Refusal | undefined => {
    const value = config[name];
    if (value === undefined) return undefined;
    if (typeof value !== "number" || value < min || value > max || (integer && !Number.isInteger(value))) {
      return invalid(`* GenerateContentRequest.generation_config.${name}: ${JSON.stringify(value)} is out of range [${min}, ${max}]`);
    }
    return undefined;
  };
  const ranged =
    number("temperature", 0, 2) ??
    number("topP", 0, 1) ??
    number("maxOutputTokens", 1, 2 ** 31 - 1, true) ??
    number("seed", -(2 ** 31), 2 ** 31 - 1, true);
  if (ranged) return ranged;
  const stops = config["stopSequences"];
  if (stops !== undefined && (!Array.isArray(stops) || stops.length > 5 || !stops.every((stop) => typeof stop === "string"))) {
    return invalid("generationConfig.stopSequences: at most 5 strings");
  }
  const mime = config["responseMimeType"];
  if (mime !== undefined && !["text/plain", "application/json", "text/x.enum"].includes(String(mime))) {
    return invalid(
      `* GenerateContentRequest.generation_config.response_mime_type: allowed mimetypes are text/plain, application/json, text/x.enum; got ${String(mime)}`,
    );
  }
  if (config["responseJsonSchema"] !== undefined) {
    if (mime !== "application/json") return invalid("generationConfig.responseJsonSchema requires responseMimeType application/json");
    if (config["responseSchema"] !== undefined) return invalid("responseSchema and responseJsonSchema are mutually exclusive");
    if (!isObject(config["responseJsonSchema"])) return invalid("generationConfig.responseJsonSchema must be a JSON Schema object");
  }
  const thinking = config["thinkingConfig"];
  if (thinking !== undefined) {
    if (!isObject(thinking)) return invalid("generationConfig.thinkingConfig is not an object");
    const stray = unknownField(thinking, THINKING_CONFIG, "generation_config.thinking_config");
    if (stray) return stray;
    if (thinking["thinkingLevel"] !== undefined && !THINKING_LEVELS.has(String(thinking["thinkingLevel"]))) {
      return invalid(`Invalid value at 'generation_config.thinking_config.thinking_level' (${JSON.stringify(thinking["thinkingLevel"])})`);
    }
    if (thinking["thinkingLevel"] !== undefined && thinking["thinkingBudget"] !== undefined) {
      return invalid("You can only set only one of thinking budget and thinking level.");
    }
    if (thinking["includeThoughts"] !== undefined && typeof thinking["includeThoughts"] !== "boolean")
      return invalid("includeThoughts must be a boolean");
  }
  return undefined;
}

function checkTools(tools: unknown): Refusal | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return invalid("tools is not an array");
  const names = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    if (!isObject(tool)) return invalid(`tools[${index}] is not an object`);
    const refusal = unknownField(tool, TOOL, `tools[${index}]`);
    if (refusal) return refusal;
    const declarations = tool["functionDeclarations"];
    if (declarations === undefined) continue;
    if (!Array.isArray(declarations)) return invalid(`tools[${index}].functionDeclarations is not an array`);
    for (const [at, declaration] of declarations.entries()) {
      const where = `tools[${index}].function_declarations[${at}]`;
      if (!isObject(declaration)) return invalid(`${where} is not an object`);
      const stray = unknownField(declaration, FUNCTION_DECLARATION, where);
      if (stray) return stray;
      const name = declaration["name"];
      if (typeof name !== "string" || !FUNCTION_NAME.test(name)) {
        return invalid(
          `* GenerateContentRequest.${where}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:) or dashes (-), with a maximum length of 128.`,
        );
      }
      if (names.has(name)) return invalid(`Duplicate function declaration found: ${name}`);
      names.add(name);
      if (declaration["parameters"] !== undefined && declaration["parametersJsonSchema"] !== undefined) {
        return invalid(`${where}: parameters and parametersJsonSchema are mutually exclusive`);
      }
      if (declaration["parametersJsonSchema"] !== undefined && !isObject(declaration["parametersJsonSchema"])) {
        return invalid(`${where}.parametersJsonSchema must be a JSON Schema object`);
      }
    }
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
