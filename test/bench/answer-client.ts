// Runs answer-client-child.ts: requests timed by a client in a process of its own (that file says why).

import { fileURLToPath } from "node:url";
import { runJsonChild } from "./json-child.js";

const CHILD = fileURLToPath(new URL("./answer-client-child.js", import.meta.url));
const DEADLINE_MS = 300_000;

export interface AnswerClientRequest {
  /** POSTed with `body` as JSON, `runs` times after one uncounted. */
  path: string;
  body: unknown;
  /** Where to write the last answer (its JSON as this client re-serialises it). */
  answerFile?: string;
}

export interface AnswerClientJob {
  baseUrl: string;
  apiKey: string;
  runs: number;
  requests: AnswerClientRequest[];
  /** How many times to time the parse of the first request's last answer alone (0: none). */
  parseRuns: number;
}

export interface AnswerClientOutcome {
  /** Per request, in order: each run's time (request to parsed answer), the answer's bytes, its longest step result. */
  requests: Array<{ times: number[]; bytes: number; longestResult: number }>;
  parseTimes: number[];
}

export function runAnswerClient(job: AnswerClientJob, what: string): Promise<AnswerClientOutcome> {
  return runJsonChild<AnswerClientOutcome>(CHILD, job, what, DEADLINE_MS);
}
