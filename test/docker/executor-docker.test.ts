// The shared channel conformance suite, over the real thing: the executor in a sandbox container,
// reached through one `docker exec` kept open.

import { channelConformanceSuite } from "../support/channel-conformance/suite.js";
import { removeAllSandboxes, testDockerRuntime } from "../support/docker-fixture.js";

channelConformanceSuite("executor in a Docker sandbox", async () => {
  const runtime = await testDockerRuntime();
  const handle = await runtime.create({ environmentId: "env_itestconformance", owner: "owner", files: [] });
  const channel = await runtime.connect(handle);
  return {
    channel,
    scratchDir: "/workspace",
    // Where HTTP_PROXY points inside a sandbox.
    egressPort: 3128,
    openAnotherChannel: () => runtime.connect(handle),
    teardown: async () => {
      channel.close();
      await removeAllSandboxes(runtime);
    },
  };
});
