// Bytes through the emulator (issue 31), against the same bytes carried the plainest way on the same
// machine: a 100 MiB file through the files API, uploaded and downloaded over HTTP, and `cat` of the same
// 100 MiB over a Unix socket (the reference); a 1 MiB file read by `read_file` inside an interaction,
// from the request to its answer.

import os from "node:os";
import Docker from "dockerode";
import fs from "node:fs";
import path from "node:path";
import { AGENT, commandScript } from "./api-client.js";
import { type AnswerClientOutcome, runAnswerClient } from "./answer-client.js";
import { startAnswerServer } from "./answer-server.js";
import { type CpuReading, processCpuMs, readCpu, threadCpuMs } from "./cpu-accounting.js";
import { dockerExec } from "./docker-floor.js";
import type { EmulatorUnderTest } from "./emulator-under-test.js";
import { download as downloadFile, downloadMs, type Transfer, upload as uploadFile, uploadMs } from "./files-api.js";
import { FIGURE, type FigureBook, megabytesPerSecond } from "./figures.js";
import { createEnvironment } from "./interaction-measures.js";
import { summarize } from "./stats.js";
import { catOverUnixSocket, scratchFile } from "./unix-socket-cat.js";

const MIB = 1024 * 1024;
export const LARGE_FILE_BYTES = 100 * MIB;
const LARGE_RUNS = 5;

interface CpuTally {
  add(before: CpuReading, after: CpuReading, clientMs: number): void;
  perRun(): { emulatorMs: number; sandboxMs: number; clientMs: number };
}

/** CPU summed over runs, as readings before and after each. */
function cpuTally(): CpuTally {
  let runs = 0;
  const sum = { emulatorMs: 0, sandboxMs: 0, clientMs: 0 };
  return {
    add(before, after, clientMs) {
      runs += 1;
      sum.emulatorMs += after.emulatorMs - before.emulatorMs;
      sum.sandboxMs += after.sandboxMs - before.sandboxMs;
      sum.clientMs += clientMs;
    },
    perRun: () => ({ emulatorMs: sum.emulatorMs / runs, sandboxMs: sum.sandboxMs / runs, clientMs: sum.clientMs / runs }),
  };
}

export async function bytesPart(
  book: FigureBook,
  start: (settings: Record<string, string>) => Promise<EmulatorUnderTest>,
  progress: (line: string) => void,
): Promise<void> {
  const scratch = scratchFile(LARGE_FILE_BYTES);
  progress("100 MiB: `cat` over a Unix socket, then through the files API (upload, download)…");
  const emulator = await start({});
  try {
    const reference = summarize(
      "`cat` of 100 MiB over a Unix socket (the reference)",
      await catOverUnixSocket(scratch.file, LARGE_FILE_BYTES, LARGE_RUNS),
    );
    const apiKey = "bench-bytes";
    const api = emulator.client(apiKey);
    const environment = await createEnvironment(api);
    const url = emulator.process.url;
    const uploads: number[] = [];
    const downloads: number[] = [];
    const writes: number[] = [];
    const docker = new Docker();
    // What an upload cannot beat: the sandbox's user writing the same 100 MiB into /workspace (its file
    // system, under its memory limit), timed inside the container.
    const writeInSandbox = async (): Promise<number> => {
      const output = await dockerExec(docker, `iemu-${emulator.instance}-${environment}`, [
        "bash",
        "-c",
        "s=$(date +%s%N); head -c 104857600 /dev/zero > /workspace/written.bin; e=$(date +%s%N); rm -f /workspace/written.bin; echo $(( (e - s) / 1000 ))",
      ]);
      const microseconds = Number(output.trim());
      if (!Number.isFinite(microseconds) || microseconds <= 0)
        throw new Error(`writing 100 MiB in the sandbox printed ${JSON.stringify(output)}`);
      return microseconds / 1000;
    };
    // Where each one's CPU goes (the bound of its line): the emulator, the sandbox, the HTTP client.
    const container = `iemu-${emulator.instance}-${environment}`;
    const uploadCpu = cpuTally();
    const downloadCpu = cpuTally();
    const timedWithCpu = async (tally: CpuTally, work: () => Promise<Transfer>): Promise<number> => {
      const before = await readCpu(docker, emulator.process.pid, container);
      const done = await work();
      tally.add(before, await readCpu(docker, emulator.process.pid, container), done.clientCpuMs);
      return done.ms;
    };
    // One uncounted round first; then upload and download in turns, so both see the same load.
    await uploadMs(url, apiKey, environment, "workspace/large.bin", scratch.file, LARGE_FILE_BYTES);
    await downloadMs(url, apiKey, environment, "workspace/large.bin", LARGE_FILE_BYTES);
    for (let run = 0; run < LARGE_RUNS; run++) {
      uploads.push(
        await timedWithCpu(uploadCpu, () => uploadFile(url, apiKey, environment, "workspace/large.bin", scratch.file, LARGE_FILE_BYTES)),
      );
      downloads.push(
        await timedWithCpu(downloadCpu, () => downloadFile(url, apiKey, environment, "workspace/large.bin", LARGE_FILE_BYTES)),
      );
      writes.push(await writeInSandbox());
    }
    book.add(FIGURE.machineCores, "cores this process may run on", os.availableParallelism(), "count", "higher");
    for (const [tally, figures] of [
      [uploadCpu, [FIGURE.filesUploadCpuEmulator, FIGURE.filesUploadCpuSandbox, FIGURE.filesUploadCpuClient]],
      [downloadCpu, [FIGURE.filesDownloadCpuEmulator, FIGURE.filesDownloadCpuSandbox, FIGURE.filesDownloadCpuClient]],
    ] as const) {
      const [emulatorFigure, sandboxFigure, clientFigure] = figures;
      const perRun = tally.perRun();
      book.add(emulatorFigure, "CPU of the emulator per 100 MiB", perRun.emulatorMs, "ms");
      book.add(sandboxFigure, "CPU of the sandbox per 100 MiB", perRun.sandboxMs, "ms");
      book.add(clientFigure, "CPU of the bench's HTTP client per 100 MiB", perRun.clientMs, "ms");
    }
    const upload = summarize("files API: upload of 100 MiB (one PUT, until its answer)", uploads);
    const download = summarize("files API: download of 100 MiB (?alt=media, to the last byte)", downloads);
    const written = summarize("the sandbox's user writing 100 MiB into /workspace (timed inside the container)", writes);
    book.addTable("100 MiB through the files API vs `cat` over a Unix socket", [
      { ...reference, figure: FIGURE.unixSocketCat100MiB },
      { ...upload, figure: FIGURE.filesUpload100MiB },
      { ...download, figure: FIGURE.filesDownload100MiB },
      { ...written, figure: FIGURE.sandboxWrite100MiB },
    ]);
    for (const [id, label, stats] of [
      [FIGURE.unixSocketCatThroughput, "`cat` of 100 MiB over a Unix socket, throughput of the median run", reference],
      [FIGURE.filesUploadThroughput, "files API: upload of 100 MiB, throughput of the median run", upload],
      [FIGURE.filesDownloadThroughput, "files API: download of 100 MiB, throughput of the median run", download],
    ] as const)
      book.add(id, label, megabytesPerSecond(LARGE_FILE_BYTES, stats.p50), "MB/s", "higher");
    await api.request("DELETE", `/v1beta/environments/${environment}`);

    progress("a 1 MiB file read by `read_file` inside an interaction, and a 10-byte one…");
    const reader = await createEnvironment(api);
    await api.interact({
      input: commandScript("head -c 1048576 /dev/zero | tr '\\0' a > /workspace/1mib.txt; printf 0123456789 > /workspace/10b.txt", 1),
      environment: reader,
    });
    const readBody = (path: string) => ({
      input: `\`\`\`tool_calls\n${JSON.stringify([{ name: "read_file", args: { path } }])}\n\`\`\``,
      environment: reader,
    });
    // Timed by a client in a process of its own (answer-client-child.ts says why), then the same two
    // answers from a bare Node.js server to the same client on the same request: what handing over an
    // answer of that size costs any server on this machine (the line's floor has the difference).
    const answers = path.join(path.dirname(scratch.file), "answers");
    fs.mkdirSync(answers);
    const largeFile = path.join(answers, "1mib.json");
    const smallFile = path.join(answers, "10b.json");
    const reads = await runAnswerClient(
      {
        baseUrl: url,
        apiKey,
        runs: 20,
        parseRuns: 20,
        requests: [
          { path: "/v1beta/interactions", body: { agent: AGENT, ...readBody("1mib.txt") }, answerFile: largeFile },
          { path: "/v1beta/interactions", body: { agent: AGENT, ...readBody("10b.txt") }, answerFile: smallFile },
        ],
      },
      "the 1 MiB and 10-byte reads' client",
    );
    const [largeReads, smallReads] = reads.requests;
    if (largeReads === undefined || smallReads === undefined) throw new Error("the reads' client answered no times");
    if (largeReads.longestResult < MIB)
      throw new Error(`read_file of a 1 MiB file answered a result of ${largeReads.longestResult} characters`);
    const readFile = summarize("interaction reading a 1 MiB file with `read_file` (request to answer)", largeReads.times);
    const readFileSmall = summarize("interaction reading a 10-byte file with `read_file` (request to answer)", smallReads.times);
    const clientParse = summarize("that client decoding and parsing the 1 MiB read's answer", reads.parseTimes);
    const bare = await startAnswerServer({ "/large": fs.readFileSync(largeFile), "/small": fs.readFileSync(smallFile) });
    let bareReads: AnswerClientOutcome;
    try {
      bareReads = await runAnswerClient(
        {
          baseUrl: bare.baseUrl,
          apiKey,
          runs: 20,
          parseRuns: 0,
          requests: [
            { path: "/large", body: { agent: AGENT, ...readBody("1mib.txt") } },
            { path: "/small", body: { agent: AGENT, ...readBody("10b.txt") } },
          ],
        },
        "the bare server's client",
      );
    } finally {
      bare.stop();
    }
    const [bareLargeReads, bareSmallReads] = bareReads.requests;
    if (bareLargeReads?.bytes !== largeReads.bytes || bareSmallReads?.bytes !== smallReads.bytes)
      throw new Error("the bare server's answers are not the emulator's");
    const bareLarge = summarize(
      "a bare Node.js server answering that 1 MiB read's answer (request to parsed answer)",
      bareLargeReads.times,
    );
    const bareSmall = summarize(
      "a bare Node.js server answering the 10-byte read's answer (request to parsed answer)",
      bareSmallReads.times,
    );
    book.addTable("A 1 MiB file through `read_file` inside an interaction", [
      { ...readFile, figure: FIGURE.readFile1MiBInteraction },
      { ...readFileSmall, figure: FIGURE.readFileSmallInteraction },
      { ...clientParse, figure: FIGURE.readFileClientParse },
      { ...bareLarge, figure: FIGURE.readFileBareAnswer },
      { ...bareSmall, figure: FIGURE.readFileBareSmallAnswer },
    ]);
    const readLarge = () => api.interact(readBody("1mib.txt"));
    const readSmall = () => api.interact(readBody("10b.txt"));
    // The emulator's CPU per read, its event loop apart from its other threads (V8's collector's helpers,
    // the store's checkpoint): what the 1 MiB costs it beyond any read. In blocks, in turns, twice.
    const large = { loopMs: 0, processMs: 0, reads: 0 };
    const small = { loopMs: 0, processMs: 0, reads: 0 };
    const pid = emulator.process.pid;
    for (let round = 0; round < 2; round++) {
      for (const [tally, read, reads] of [
        [large, readLarge, 20],
        [small, readSmall, 40],
      ] as const) {
        const loopBefore = threadCpuMs(pid);
        const processBefore = processCpuMs(pid);
        for (let i = 0; i < reads; i++) await read();
        tally.loopMs += threadCpuMs(pid) - loopBefore;
        tally.processMs += processCpuMs(pid) - processBefore;
        tally.reads += reads;
      }
    }
    for (const [tally, size, loopFigure, otherFigure] of [
      [large, "1 MiB", FIGURE.readFile1MiBLoopCpu, FIGURE.readFile1MiBOtherCpu],
      [small, "10 bytes", FIGURE.readFileSmallLoopCpu, FIGURE.readFileSmallOtherCpu],
    ] as const) {
      book.add(loopFigure, `CPU per \`read_file\` of ${size}: the emulator's event loop`, tally.loopMs / tally.reads, "ms", "lower");
      book.add(
        otherFigure,
        `CPU per \`read_file\` of ${size}: the emulator's other threads`,
        (tally.processMs - tally.loopMs) / tally.reads,
        "ms",
        "lower",
      );
    }
    await api.request("DELETE", `/v1beta/environments/${reader}`);
  } finally {
    await emulator.destroy();
    scratch.remove();
  }
}
