// The faults of one sandbox tool call (docs/faults.md#tools and #the-sandbox-channel): a "tool" rule
// stands in for the tool's own result, a "sandbox_channel" rule for the channel under it. Each ends the
// call the way the real failure does, so the hooks around it (pre before, post after) and the agent
// see what production would show, and the result's text ends with the mark (injectedMark).

import { faultDelay } from "../faults/fault-delay.js";
import type { InjectedFault } from "../faults/fault-plan.js";
import { injectedMark, type FaultPort } from "../faults/fault-port.js";
import { SandboxUnavailableError, type SandboxChannel } from "../sandbox/runtime.js";
import type { ToolCall } from "../tools/tool-call.js";
import type { ToolExecution, ToolLimits } from "../tools/tool-runner.js";

/** Runs the call through `run`, unless a fault rule of the key says otherwise. */
export async function runToolWithFaults(
  faults: FaultPort | undefined,
  call: ToolCall,
  channel: SandboxChannel,
  limits: ToolLimits,
  signal: AbortSignal | undefined,
  run: () => Promise<ToolExecution>,
): Promise<ToolExecution> {
  if (!faults?.armed()) return run();
  const toolFault = faults.take({ kind: "tool", name: call.name });
  if (toolFault) {
    const effect = toolFault.effect;
    if (effect.kind === "error") return failedWith(effect.message, toolFault);
    if (effect.kind === "timeout") {
      // The tool's deadline, waited for real: the call holds its interaction as a hung command would.
      await faultDelay(limits.timeoutMs, signal);
      return timedOut(call, limits, toolFault);
    }
    if (effect.kind === "latency") await faultDelay(effect.ms, signal);
  }
  const channelFault = faults.take({ kind: "sandbox_channel" });
  if (channelFault?.effect.kind === "latency") await faultDelay(channelFault.effect.ms, signal);
  if (channelFault?.effect.kind === "drop") return dropped(channel, run, channelFault);
  return run();
}

/** The tool failed with the message: is_error, and the post hooks see the message as the tool's error. */
function failedWith(message: string, fault: InjectedFault): ToolExecution {
  return { result: message + injectedMark(fault), isError: true, errorText: message };
}

/**
 * What the tool answers when it ran past its deadline. code_execution: exactly the killed note of a
 * real timeout (tool-runner.ts). [choice] A file tool has no deadline of its own in the sandbox (a
 * stuck file operation breaks the channel, which is the "sandbox_channel" target), so its injected
 * timeout is an error result naming the deadline.
 */
function timedOut(call: ToolCall, limits: ToolLimits, fault: InjectedFault): ToolExecution {
  const seconds = Math.round(limits.timeoutMs / 1000);
  if (call.name === "code_execution") {
    return { result: `\n[killed: the command ran longer than ${seconds} s]${injectedMark(fault)}`, isError: true, exitCode: null };
  }
  const message = `${call.name} did not finish within ${seconds} s`;
  return { result: message + injectedMark(fault), isError: true, errorText: message };
}

/**
 * The channel is closed for real right after the call's request went out (run() sends it before its
 * first await), so the call fails the way a lost channel fails it: SandboxUnavailableError, the
 * interaction "failed" with UNAVAILABLE, and the environment's next use opens a new channel.
 */
async function dropped(channel: SandboxChannel, run: () => Promise<ToolExecution>, fault: InjectedFault): Promise<ToolExecution> {
  const running = run();
  channel.close();
  let failure: SandboxUnavailableError;
  try {
    await running;
    // An answer that raced the close would never have arrived over a broken channel.
    failure = new SandboxUnavailableError("sandbox executor unavailable: the channel was closed");
  } catch (error) {
    if (!(error instanceof SandboxUnavailableError)) throw error;
    failure = error;
  }
  throw new SandboxUnavailableError(failure.message + injectedMark(fault), { cause: failure });
}
