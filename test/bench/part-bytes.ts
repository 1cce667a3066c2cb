// Bytes through the emulator (issue 31), against the same bytes carried the plainest way on the same
// machine: a 100 MiB file through the files API, uploaded and downloaded over HTTP, and `cat` of the same
// 100 MiB over a Unix socket (the reference); a 1 MiB file read by `read_file` inside an interaction,
// from the request to its answer.

import os from "node:os";
import Docker from "dockerode";
import { commandScript } from "./api-client.js";
import { type CpuReading, readCpu } from "./cpu-accounting.js";
import { dockerExec } from "./docker-floor.js";
import type { EmulatorUnderTest } from "./emulator-under-test.js";
import { download as downloadFile, downloadMs, type Transfer, upload as uploadFile, uploadMs } from "./files-api.js";
import { FIGURE, type FigureBook, megabytesPerSecond } from "./figures.js";
import { createEnvironment } from "./interaction-measures.js";
import { measure, summarize } from "./stats.js";
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

    progress("a 1 MiB file read by `read_file` inside an interaction…");
    const reader = await createEnvironment(api);
    await api.interact({ input: commandScript("head -c 1048576 /dev/zero | tr '\\0' a > /workspace/1mib.txt", 1), environment: reader });
    const body = {
      input: `\`\`\`tool_calls\n${JSON.stringify([{ name: "read_file", args: { path: "1mib.txt" } }])}\n\`\`\``,
      environment: reader,
    };
    const readFile = await measure("interaction reading a 1 MiB file with `read_file` (request to answer)", 20, async () => {
      const interaction = await api.interact(body);
      const longest = Math.max(0, ...(interaction.steps ?? []).map((step) => step.result?.length ?? 0));
      if (longest < MIB) throw new Error(`read_file of a 1 MiB file answered a result of ${longest} characters`);
    });
    book.addTable("A 1 MiB file through `read_file` inside an interaction", [{ ...readFile, figure: FIGURE.readFile1MiBInteraction }]);
    await api.request("DELETE", `/v1beta/environments/${reader}`);
  } finally {
    await emulator.destroy();
    scratch.remove();
  }
}
