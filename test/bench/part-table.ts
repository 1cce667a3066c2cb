// The rest of the table through the HTTP API: a whole interaction in a reused environment, and egress
// through the proxy (curl in the sandbox to a local upstream reached as bench.example.com).

import http from "node:http";
import type { AddressInfo } from "node:net";
import { commandScript } from "./api-client.js";
import type { EmulatorUnderTest } from "./emulator-under-test.js";
import type { FigureBook } from "./figures.js";
import { createEnvironment } from "./interaction-measures.js";
import { measure } from "./stats.js";

const BIG_BODY = Buffer.alloc(50 * 1024 * 1024, 97);

export async function tablePart(
  book: FigureBook,
  start: (settings: Record<string, string>) => Promise<EmulatorUnderTest>,
  progress: (line: string) => void,
): Promise<void> {
  const upstream = http.createServer((request, response) => {
    if (request.url === "/big") response.end(BIG_BODY);
    else response.end("ok");
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  progress("an emulator for the rest of the table: a reused environment, egress…");
  const emulator = await start({ EMULATOR_EGRESS_HOST_MAP: `bench.example.com=127.0.0.1:${(upstream.address() as AddressInfo).port}` });
  try {
    const api = emulator.client("bench-table");
    const environment = await createEnvironment(api);
    book.addTable("A whole interaction through the HTTP API (store, agent, sandbox)", [
      {
        ...(await measure("reused environment: write, run, read", 50, () =>
          api.interact({
            input: "create `/workspace/x.txt` containing 'x', then run `cat /workspace/x.txt`, then read it back",
            environment,
          }),
        )),
        figure: "interaction.reused_environment_write_run_read.p50_ms",
      },
    ]);
    const curl = (code: string) => () => api.interact({ input: commandScript(code, 1), environment });
    book.addTable("Egress through the proxy (curl in the sandbox, via the executor channel, the gateway and the proxy)", [
      { ...(await measure("run `true` (baseline: the interaction itself)", 20, curl("true"))), figure: "egress.baseline_true.p50_ms" },
      {
        ...(await measure("curl a small HTTP response", 20, curl("curl -sS http://bench.example.com/"))),
        figure: "egress.curl_small.p50_ms",
      },
      {
        ...(await measure("curl 50 MiB over HTTP", 5, curl("curl -sS -o /dev/null http://bench.example.com/big"))),
        figure: "egress.curl_50mib.p50_ms",
      },
    ]);
  } finally {
    await emulator.destroy();
    upstream.close();
  }
}
