import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { savedFoldersOf, sourcesOfRow } from "../../server/snapshots/saved-folders.js";
import { SAVED_FOLDERS } from "../../server/snapshots/state-format.js";

describe("the folders a state file saves of one sandbox", () => {
  it("adds the top-level folder of each source outside the image's writable places", () => {
    const folders = savedFoldersOf([
      { type: "inline", target: "/src/app.py" },
      { type: "inline", target: "/src/lib/util.py" },
      { type: "inline", target: "/notes.txt" },
      // Relative targets that do not start with a folder at the root land in /workspace, saved already.
      { type: "inline", target: "lib-of-mine/a.py" },
      { type: "inline", target: "workspace/data.json" },
      { type: "inline", target: ".agents/hooks.json" },
    ]);
    assert.deepEqual(folders, [...SAVED_FOLDERS, "/src", "/notes.txt"]);
  });

  it("never saves a folder that holds a reserved one: a source under /opt saves its own folder, not /opt (issue 29)", () => {
    const folders = savedFoldersOf([
      { type: "inline", target: "opt/app/run.sh" },
      { type: "inline", target: "opt/tool.sh" },
      { type: "repository", target: "opt/repo" },
      { type: "inline", target: "opt/emulator2/x" },
    ]);
    assert.deepEqual(folders, [...SAVED_FOLDERS, "/opt/app", "/opt/tool.sh", "/opt/repo", "/opt/emulator2"]);
  });

  it("widens nothing for a hand-made record naming system or executor folders, or a malformed one", () => {
    const hostile = [
      { target: "etc/passwd" },
      { target: "opt/emulator/executor.js" },
      { target: "opt" },
      { target: "opt/../opt" },
      { target: "usr/libexec/interactions-emulator/sandbox-executor" },
      { target: "/usr/bin/x" },
      { target: "../root" },
      { target: 42 },
      null,
      "src",
    ];
    assert.deepEqual(savedFoldersOf(hostile), [...SAVED_FOLDERS]);
    assert.deepEqual(savedFoldersOf("not a list"), [...SAVED_FOLDERS]);
    assert.deepEqual(sourcesOfRow("{not json"), []);
    assert.deepEqual(sourcesOfRow(JSON.stringify({ sources: [{ target: "src/a" }] })), [{ target: "src/a" }]);
  });
});
