// The figures one benchmark run produces: a flat map from a stable ID to a value with its unit and
// which direction is better, so runs can be compared figure by figure (results.ts) and goals computed
// from them (goals.ts). Pure: no I/O.

import type { Stats } from "./stats.js";

export interface Figure {
  label: string;
  value: number;
  unit: string;
  better: "lower" | "higher";
}

export type Figures = Record<string, Figure>;

/** IDs of the figures the goals are computed from (the JSON keeps them, so keep them stable). */
export const FIGURE = {
  dockerExec: "floor.docker_exec_true.p50_ms",
  dockerRun: "floor.docker_run_rm_true.p50_ms",
  spawn: "floor.bash_c_true_spawn_in_container.ms",
  /** The same spawn in the tool call's own container, in turns with its rounds (part-interactions.ts). */
  spawnBesideCall: "floor.bash_c_true_beside_call.p50_ms",
  channelTrue: "channel.run_true.p50_ms",
  channelCat: "channel.cat_1mib.p50_ms",
  channelThroughput: "channel.cat_1mib.mb_per_s",
  noToolCall: "interaction.no_tool_call.p50_ms",
  perCall: "interaction.per_tool_call.ms",
  perCallOneHook: "interaction.per_tool_call_one_command_hook.ms",
  /** A `read_file` of a 10-byte file inside an interaction (a file tool's hooks confirmed in its own request). */
  perFileCall: "interaction.per_read_file_call.ms",
  newEnvironmentFromPool: "environment.new_from_pool.p50_ms",
  newEnvironmentWithoutPool: "environment.new_without_pool.p50_ms",
  // What bounds a goal the emulator misses (goals.ts, `bound`): measured in the same run.
  cpuPerCallEmulator: "cpu.per_tool_call.emulator_ms",
  cpuPerCallSandbox: "cpu.per_tool_call.sandbox_ms",
  /** Of the sandbox's, the executor's own processes (the keep-alive, the executor, its file worker); the rest is the command's. */
  cpuPerCallExecutor: "cpu.per_tool_call.sandbox_executor_ms",
  cpuPerCallEngine: "cpu.per_tool_call.engine_ms",
  cpuPerHookedCallEmulator: "cpu.per_hooked_tool_call.emulator_ms",
  cpuPerHookedCallSandbox: "cpu.per_hooked_tool_call.sandbox_ms",
  cpuPerHookedCallExecutor: "cpu.per_hooked_tool_call.sandbox_executor_ms",
  cpuPerHookedCallEngine: "cpu.per_hooked_tool_call.engine_ms",
  executorStartInSandbox: "floor.executor_start_in_container.ms",
  engineCarries1MiB: "floor.docker_exec_carries_1mib.p50_ms",
  /** One thread waking another on another core (core-wake.ts): just idled, and idle for 1 ms. */
  coreHandOff: "floor.core_hand_off.us",
  coreIdleWake: "floor.core_idle_wake.us",
  // The sandbox's CPU (its cgroup) per command: `true` through the executor, and the same /bin/true
  // spawned by a shell loop in the container, so a bound can say how much of a command is the executor.
  channelTrueSandboxCpu: "cpu.channel_run_true.sandbox_ms",
  shellTrueSandboxCpu: "floor.shell_spawns_bin_true.sandbox_cpu_ms",
  // An idle sandbox's memory (part-sandbox.ts, before it runs anything) and what it is made of.
  idleSandboxMemory: "memory.idle_sandbox.mib",
  idleSandboxAnonymous: "memory.idle_sandbox.anonymous.mib",
  idleSandboxPageCache: "memory.idle_sandbox.page_cache.mib",
  idleSandboxExecutorRss: "memory.idle_sandbox.executor_rss.mib",
  idleSandboxFileWorkerRss: "memory.idle_sandbox.file_worker_rss.mib",
  idleSandboxKeepAliveRss: "memory.idle_sandbox.keep_alive_rss.mib",
  idleSandboxInitRss: "memory.idle_sandbox.init_rss.mib",
  idleSandboxOtherRss: "memory.idle_sandbox.other_rss.mib",
  // Issue 31: bytes against `cat` of the same bytes over a Unix socket (part-bytes.ts).
  unixSocketCat100MiB: "floor.cat_100mib_unix_socket.p50_ms",
  unixSocketCatThroughput: "floor.cat_100mib_unix_socket.mb_per_s",
  sandboxWrite100MiB: "floor.sandbox_write_100mib.p50_ms",
  filesUpload100MiB: "files.upload_100mib.p50_ms",
  filesUploadThroughput: "files.upload_100mib.mb_per_s",
  filesDownload100MiB: "files.download_100mib.p50_ms",
  filesDownloadThroughput: "files.download_100mib.mb_per_s",
  /** The cores this process may run on (os.availableParallelism), as the bytes part saw them. */
  machineCores: "machine.cores",
  // Where an upload's and a download's CPU goes: the emulator, the sandbox (its one CPU) and the bench's own client.
  filesUploadCpuEmulator: "cpu.files_upload_100mib.emulator_ms",
  filesUploadCpuSandbox: "cpu.files_upload_100mib.sandbox_ms",
  filesUploadCpuClient: "cpu.files_upload_100mib.client_ms",
  filesDownloadCpuEmulator: "cpu.files_download_100mib.emulator_ms",
  filesDownloadCpuSandbox: "cpu.files_download_100mib.sandbox_ms",
  filesDownloadCpuClient: "cpu.files_download_100mib.client_ms",
  readFile1MiBInteraction: "interaction.read_file_1mib.p50_ms",
  readFileSmallInteraction: "interaction.read_file_10b.p50_ms",
  /** This benchmark's client joining, decoding and parsing the 1 MiB read's answer (api-client.ts parseAnswer). */
  readFileClientParse: "client.read_file_1mib_answer_parse.p50_ms",
  /** A bare Node.js server answering the 1 MiB read's answer, and the 10-byte one's: request to parsed answer. */
  readFileBareAnswer: "floor.bare_server_read_file_1mib_answer.p50_ms",
  readFileBareSmallAnswer: "floor.bare_server_read_file_10b_answer.p50_ms",
  // The emulator's CPU per read_file: its event loop's thread, and its other threads (V8's, the store's checkpoint).
  readFile1MiBLoopCpu: "cpu.read_file_1mib.emulator_loop_ms",
  readFile1MiBOtherCpu: "cpu.read_file_1mib.emulator_other_ms",
  readFileSmallLoopCpu: "cpu.read_file_10b.emulator_loop_ms",
  readFileSmallOtherCpu: "cpu.read_file_10b.emulator_other_ms",
  // Issue 31: time to interactive, create until a first command has run (part-time-to-interactive.ts).
  ttiSequentialP50: "tti.sequential.p50_ms",
  ttiSequentialP99: "tti.sequential.p99_ms",
  ttiSequentialFromPool: "tti.sequential.from_pool.share",
  ttiStaggeredP50: "tti.staggered.p50_ms",
  ttiStaggeredP99: "tti.staggered.p99_ms",
  ttiStaggeredFromPool: "tti.staggered.from_pool.share",
  ttiBurstP50: "tti.burst.p50_ms",
  ttiBurstP99: "tti.burst.p99_ms",
  ttiSequentialColdP50: "tti.sequential.cold.p50_ms",
  ttiStaggeredColdP50: "tti.staggered.cold.p50_ms",
  ttiStaggeredRate: "tti.staggered.ready_per_s",
  ttiPoolSize: "tti.pool_size.count",
  ttiDockerRun: "floor.docker_run_rm_true_sequential.p50_ms",
  ttiBurstIdeal: "floor.engine_burst_create_start.p99_ms",
  engineCreatesPerSecond: "floor.engine_burst_creates_per_s",
  // Issue 31: density, live idle environments (part-density.ts).
  densityTarget: "density.target.count",
  densityReached: "density.live_environments.count",
  densityStoppedBy: "density.stopped_by.code",
  densityRssPerEnvironment: "density.emulator_rss_per_environment.kib",
  densityHeapPerEnvironment: "density.emulator_heap_per_environment.kib",
  densityMachinePerEnvironment: "density.machine_memory_per_environment.mib",
  densityAvailableAtStop: "density.memory_available_at_stop.mib",
  densityTasksAtStop: "density.tasks_at_stop.count",
  densityTaskLimit: "density.task_limit.count",
  densityEmulatorFds: "density.emulator_fds_at_stop.count",
  densityEmulatorFdLimit: "density.emulator_fd_limit.count",
  densityCallAt1: "density.tool_call_at_1.ms",
  densityCallAtMost: "density.tool_call_at_most.ms",
  densityBusyCoresAtMost: "density.tool_call_at_most.machine_busy.cores",
  // The most live environments idle, before those calls: the machine's busy cores and who used them.
  densityIdleBusyCores: "density.idle_at_most.machine_busy.cores",
  densityIdleEngineCores: "density.idle_at_most.engine.cores",
  densityIdleSandboxesCores: "density.idle_at_most.sandboxes.cores",
  densityIdleEmulatorCores: "density.idle_at_most.emulator.cores",
  // Issue 31: throughput under concurrency (part-concurrency.ts).
  spawnsPerSecond: "floor.bash_c_true_spawns_per_s_all_cores",
  concurrencyBestRate: "concurrency.best.tool_calls_per_s",
  concurrencyBestAt: "concurrency.best.at.count",
  concurrencyWorstTail: "concurrency.worst.p99_over_p50",
  concurrencyWorstTailAt: "concurrency.worst_tail.at.count",
  concurrencyWorstTailEmulatorCores: "concurrency.worst_tail.emulator.cores",
  concurrencyWorstTailBusyCores: "concurrency.worst_tail.machine_busy.cores",
  concurrencyHealthAt: "concurrency.health_slowest.at.count",
  concurrencyHealthEmulatorCores: "concurrency.health_slowest.emulator.cores",
  concurrencyHealthBusyCores: "concurrency.health_slowest.machine_busy.cores",
  concurrencyHealthEngineMax: "concurrency.health_slowest.engine_probe.max_ms",
  concurrencyHealthCoreWait: "concurrency.health_slowest.emulator_core_wait_ms",
  /** The /health prober's own thread (part-concurrency.ts) waiting for a core during the slowest sample. */
  concurrencyHealthProberWait: "concurrency.health_slowest.prober_core_wait_ms",
  concurrencyBestEmulatorCores: "concurrency.best.emulator.cores",
  concurrencyBestSandboxesCores: "concurrency.best.sandboxes.cores",
  concurrencyBestExecutorsCores: "concurrency.best.executors.cores",
  concurrencyBestEngineCores: "concurrency.best.engine.cores",
  concurrencyBestBenchCores: "concurrency.best.bench_client.cores",
  concurrencyHealthMax: "concurrency.health.max_ms",
  concurrencyHealthP99: "concurrency.health.p99_ms",
  concurrencyBusyCores: "concurrency.best.machine_busy.cores",
  warmStart: "start.warm_npm_start_until_healthy.p50_ms",
  bareExpressStart: "floor.bare_express_until_healthy.p50_ms",
  // Issue 32: the swarm runtime on the three-node test swarm (part-swarm.ts): a sandbox on the
  // emulator's own node and one on another node, in turns.
  swarmCallOwnNode: "swarm.tool_call.own_node.p50_ms",
  swarmCallOtherNode: "swarm.tool_call.other_node.p50_ms",
  swarmChannelOwnNode: "swarm.channel_run_true.own_node.p50_ms",
  swarmChannelOtherNode: "swarm.channel_run_true.other_node.p50_ms",
} as const;

/** Collects the figures of a run, with the tables they were printed in. */
export class FigureBook {
  readonly figures: Figures = {};
  readonly tables: Array<{ title: string; rows: Stats[] }> = [];

  /** Printed findings that are not timing rows (a CPU profile), kept with the results. */
  readonly notes: Array<{ title: string; lines: string[] }> = [];

  /** `onTable` and `onNote` are told of each table and note as it is added (the benchmark prints it at once). */
  constructor(
    private readonly onTable: (title: string, rows: Stats[]) => void = () => undefined,
    private readonly onNote: (title: string, lines: string[]) => void = () => undefined,
  ) {}

  addNote(title: string, lines: string[]): void {
    this.notes.push({ title, lines });
    this.onNote(title, lines);
  }

  add(id: string, label: string, value: number, unit: string, better: Figure["better"] = "lower"): void {
    if (!Number.isFinite(value)) return;
    this.figures[id] = { label, value, unit, better };
  }

  /** A timing row: its median becomes the figure (IDs of medians end in `.p50_ms`). */
  addStats(id: string, stats: Stats): void {
    this.add(id, stats.label, stats.p50, "ms");
  }

  /** A printed table; the rows given a figure ID also become figures. */
  addTable(title: string, rows: Array<Stats & { figure?: string }>): void {
    const plain = rows.map(({ figure: _figure, ...row }) => row);
    this.tables.push({ title, rows: plain });
    this.onTable(title, plain);
    for (const row of rows) if (row.figure) this.addStats(row.figure, row);
  }

  value(id: string): number | undefined {
    return this.figures[id]?.value;
  }
}

/** MB/s (10^6 bytes per second) of `bytes` moved in `ms` milliseconds. */
export function megabytesPerSecond(bytes: number, ms: number): number {
  return ms > 0 ? bytes / 1e6 / (ms / 1000) : Number.NaN;
}
