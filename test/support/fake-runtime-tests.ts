// The emulator with fake sandboxes (fake-runtime.ts) for the tests of one file, or of the describe block
// this is called in: started in a before hook, closed in an after hook, so a test file states only what
// is its own (its settings, its clients). Everything the start needs happens in that one hook, in order:
// `env` (which may start a server the settings name, a fake model's), the start, then `ready` (the test
// file's clients). Node 20 does not wait for one top-level before hook before it runs the next, so a
// second hook could not rely on the first.

import { after, before } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { type FakeRuntimeEmulator, startFakeRuntimeEmulator } from "./fake-runtime.js";

export interface FakeRuntimeSetUp {
  /** Its settings, as environment variables; a function is called in the hook, before the start. */
  env?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Called in the hook once the emulator answers: make the test file's clients here. */
  ready?: (emulator: FakeRuntimeEmulator) => void;
}

export interface FakeRuntimeTests {
  /** The running emulator, from the before hook on. */
  readonly emulator: FakeRuntimeEmulator;
  /** The official SDK's client for `apiKey`, against the emulator. */
  sdk(apiKey: string): GoogleGenAI;
}

export function fakeRuntimeEmulatorForTests(setUp: FakeRuntimeSetUp = {}): FakeRuntimeTests {
  let running: FakeRuntimeEmulator | undefined;
  before(async () => {
    const env = typeof setUp.env === "function" ? await setUp.env() : (setUp.env ?? {});
    running = await startFakeRuntimeEmulator(env);
    setUp.ready?.(running);
  });
  after(async () => {
    await running?.close();
  });
  const tests: FakeRuntimeTests = {
    get emulator(): FakeRuntimeEmulator {
      if (!running) throw new Error("the fake-runtime emulator starts in a before hook: use it from a test, or in `ready`");
      return running;
    },
    sdk: (apiKey) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: tests.emulator.url } }),
  };
  return tests;
}
