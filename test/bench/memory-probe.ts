// Loaded into one emulator process of the benchmark with NODE_OPTIONS="--import <this file>" (the one
// that measures memory per environment), and nowhere else. On SIGUSR2 it collects all garbage and writes
// process.memoryUsage() to BENCH_MEMORY_FILE, so two readings of the emulator's memory differ by what it
// keeps, not by when V8 last collected: without it the RSS of an idle emulator moves by tens of MiB on
// its own, far more than 49 environments add.

import fs from "node:fs";
import v8 from "node:v8";
import vm from "node:vm";

const file = process.env["BENCH_MEMORY_FILE"];
if (file) {
  v8.setFlagsFromString("--expose-gc");
  const collect = vm.runInNewContext("gc") as () => void;
  process.on("SIGUSR2", () => {
    collect();
    const temporary = `${file}.tmp`;
    fs.writeFileSync(temporary, JSON.stringify(process.memoryUsage()));
    fs.renameSync(temporary, file);
  });
}
