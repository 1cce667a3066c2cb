// The client of a line measured in answers (a 1 MiB `read_file` inside an interaction), in a Node.js
// process of its own: the benchmark's process, by the time the bytes part runs, holds a heap that made
// this same client take 6.4 ms to receive and parse a 1 MiB answer a fresh process takes 2.5 ms for.
// A user's client does not carry the benchmark's heap (files-api.ts moved its transfers out for the same
// reason). argv[2]: an AnswerClientJob as JSON; the outcome (AnswerClientOutcome) on stdout as JSON.

import fs from "node:fs";
import { ApiClient, completed, type Interaction, parseAnswer } from "./api-client.js";
import type { AnswerClientJob, AnswerClientOutcome } from "./answer-client.js";

const job = JSON.parse(process.argv[2] ?? "{}") as AnswerClientJob;
const client = new ApiClient(job.baseUrl, job.apiKey, 1);
const elapsedMs = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

const outcome: AnswerClientOutcome = { requests: [], parseTimes: [] };
let firstAnswer: Buffer | null = null;
for (const request of job.requests) {
  const times: number[] = [];
  let answer: Interaction | null = null;
  // One uncounted request first (the connection, the server's first answer of the kind).
  for (let run = -1; run < job.runs; run++) {
    const start = process.hrtime.bigint();
    answer = completed(await client.request<Interaction>("POST", request.path, request.body));
    if (run >= 0) times.push(elapsedMs(start));
  }
  const text = JSON.stringify(answer);
  const longestResult = Math.max(0, ...(answer?.steps ?? []).map((step) => step.result?.length ?? 0));
  if (request.answerFile !== undefined) fs.writeFileSync(request.answerFile, text);
  firstAnswer ??= Buffer.from(text);
  outcome.requests.push({ times, bytes: Buffer.byteLength(text), longestResult });
}
client.close();
// The client's own part of the first request's time: its answer's bytes, in the 64 KiB chunks a socket
// hands over, joined, decoded and parsed.
if (firstAnswer !== null && job.parseRuns > 0) {
  const bytes = firstAnswer;
  const chunks = Array.from({ length: Math.ceil(bytes.length / (64 * 1024)) }, (_, index) =>
    bytes.subarray(index * 64 * 1024, (index + 1) * 64 * 1024),
  );
  parseAnswer(chunks);
  for (let run = 0; run < job.parseRuns; run++) {
    const start = process.hrtime.bigint();
    parseAnswer(chunks);
    outcome.parseTimes.push(elapsedMs(start));
  }
}
process.stdout.write(JSON.stringify(outcome));
