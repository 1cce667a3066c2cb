// End to end: the files API of environments through the official @google/genai SDK (list, download,
// resumable upload with extract) and the limits of what it may reach, against the emulator started as
// `npm start` starts it, with real Docker sandboxes.
// covers: environments.files.list, environments.files.download, environments.files.upload

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { before, describe, it } from "node:test";
import { readTar, tarGz, zip } from "../support/archives.js";
import {
  KEY,
  OTHER_KEY,
  MiB,
  MAX_DOWNLOAD,
  other,
  uploadPosts,
  type Environment,
  type EnvironmentFile,
  rejectsWith,
  sha,
  createEnvironment,
  getEnvironment,
  listFiles,
  upload,
  download,
  bashIn,
  rawGet,
  rest,
  useEnvironmentsEmulator,
} from "../support/environments-harness.js";

useEnvironmentsEmulator();

describe("files: list", () => {
  let env: Environment;

  before(async () => {
    env = await createEnvironment({
      sources: [
        { type: "inline", target: "workspace/src/main.py", content: "print('hello from env')\n" },
        { type: "inline", target: "workspace/src/lib/util.py", content: "X = 1\n" },
        { type: "inline", target: "workspace/README.md", content: "# readme\n" },
        { type: "inline", target: "workspace/a b.txt", content: "spaces" },
      ],
    });
  });

  it("lists a folder's contents, with metadata", async () => {
    const listing = await listFiles(env.id, "workspace");
    assert.deepEqual(
      listing.files?.map((file) => file.path),
      ["workspace/README.md", "workspace/a b.txt", "workspace/src"],
    );
    assert.equal(listing.next_page_token, "");
    const [readme, , src] = listing.files!;
    assert.deepEqual(
      { ...readme, created: undefined, modified: undefined },
      {
        name: "README.md",
        path: "workspace/README.md",
        type: "file",
        mime_type: "text/markdown",
        size_bytes: "9",
        created: undefined,
        modified: undefined,
      },
    );
    assert.match(readme!.modified ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(src!.type, "directory");
    assert.equal(src!.mime_type, "");
  });

  it("lists recursively, depth first by name", async () => {
    const listing = await listFiles(env.id, "workspace/src", { recursive: true });
    assert.deepEqual(
      listing.files?.map((file) => [file.path, file.type]),
      [
        ["workspace/src/lib", "directory"],
        ["workspace/src/lib/util.py", "file"],
        ["workspace/src/main.py", "file"],
      ],
    );
    assert.equal(listing.files?.[2]?.mime_type, "text/x-python");
  });

  it("pages through a recursive listing", async () => {
    const whole = (await listFiles(env.id, "workspace", { recursive: true, page_size: 100 })).files!.map((file) => file.path);
    assert.equal(whole.length, 6);
    const paged: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const listing = await listFiles(env.id, "workspace", { recursive: true, page_size: 2, ...(token ? { page_token: token } : {}) });
      assert.ok((listing.files?.length ?? 0) <= 2);
      paged.push(...listing.files!.map((file) => file.path!));
      token = listing.next_page_token;
      if (!token) break;
    }
    assert.deepEqual(paged, whole);
    const token2 = (await listFiles(env.id, "workspace", { recursive: true, page_size: 2 })).next_page_token!;
    await assert.rejects(listFiles(env.id, "workspace/src", { recursive: true, page_token: token2 }), rejectsWith(400, /another listing/));
  });

  it("lists the workspace with path '', and reads other relative paths from it", async () => {
    const names = (await listFiles(env.id, "", { page_size: 1000 })).files!.map((file) => file.path);
    for (const expected of ["workspace/README.md", "workspace/src"])
      assert.ok(names.includes(expected), `${expected} missing from ${names}`);
    assert.ok(!names.some((name) => ["", ".agents", "tmp", "usr", "proc"].includes(name ?? "")), names.join(", "));
    // "src/main.py" is /workspace/src/main.py (the OpenAPI document's samples); "tmp" is /tmp.
    assert.deepEqual(
      (await listFiles(env.id, "src/main.py")).files!.map((file) => file.path),
      ["workspace/src/main.py"],
    );
    assert.ok((await listFiles(env.id, "tmp")).files!.every((file) => file.path?.startsWith("tmp/")));
  });

  it("describes a single file by itself", async () => {
    const listing = await listFiles(env.id, "workspace/src/main.py");
    assert.deepEqual(
      listing.files?.map((file) => [file.name, file.size_bytes]),
      [["main.py", "24"]],
    );
  });

  it("answers 404 for a missing path and 403 for the pseudo file systems", async () => {
    await assert.rejects(listFiles(env.id, "workspace/nowhere"), rejectsWith(404, /workspace\/nowhere/));
    await assert.rejects(listFiles(env.id, "proc"), rejectsWith(403, /\/proc/));
  });
});

describe("files: download", () => {
  let env: Environment;

  before(async () => {
    env = await createEnvironment({ sources: [{ type: "inline", target: "workspace/hello.txt", content: "hello" }] });
  });

  it("downloads a file's bytes, through either form of the environment name and a leading /", async () => {
    assert.equal((await download(env.id, "workspace/hello.txt")).toString(), "hello");
    assert.equal((await download(`environments/${env.id}`, "/workspace/hello.txt")).toString(), "hello");
    const raw = await rest("GET", `/v1beta/environments/${env.id}/files/workspace/hello.txt?alt=media`);
    assert.equal(raw.status, 200);
    assert.equal(raw.text, "hello");
    assert.equal(raw.headers.get("content-type"), "text/plain");
    assert.equal(raw.headers.get("content-length"), "5");
  });

  it("downloads a multi-MiB binary made in the sandbox byte for byte", async () => {
    await bashIn(env.id, "head -c 6291459 /dev/urandom > /workspace/random.bin");
    const expected = (await bashIn(env.id, "sha256sum /workspace/random.bin | cut -d' ' -f1")).trim();
    const bytes = await download(env.id, "workspace/random.bin");
    assert.equal(bytes.length, 6_291_459);
    assert.equal(sha(bytes), expected);
  });

  it("downloads a folder as a tar; refuses a missing file, and a file or folder over EMULATOR_MAX_DOWNLOAD_BYTES", async () => {
    const folder = await readTar(await download(env.id, "workspace"));
    assert.equal(folder.get("hello.txt")?.content, "hello");
    await assert.rejects(download(env.id, "workspace/missing.txt"), rejectsWith(404));
    await bashIn(env.id, `truncate -s ${MAX_DOWNLOAD + 1} /workspace/too-big.bin`);
    await assert.rejects(download(env.id, "workspace/too-big.bin"), rejectsWith(400, /EMULATOR_MAX_DOWNLOAD_BYTES/));
    await assert.rejects(download(env.id, "workspace"), rejectsWith(400, /EMULATOR_MAX_DOWNLOAD_BYTES/));
  });
});

describe("files: upload", () => {
  let env: Environment;

  before(async () => {
    env = await createEnvironment({ sources: [{ type: "inline", target: "workspace/existing.txt", content: "original" }] });
  });

  it("uploads a small file, creating its folders", async () => {
    const result = await upload(env.id, "workspace/notes/today/hello.txt", "hi there");
    assert.deepEqual(
      result.files.map((file) => [file.path, file.type, file.size_bytes, file.mime_type]),
      [["workspace/notes/today/hello.txt", "file", "8", "text/plain"]],
    );
    assert.equal((await download(env.id, "workspace/notes/today/hello.txt")).toString(), "hi there");
    assert.equal((await bashIn(env.id, "stat -c %U /workspace/notes/today/hello.txt")).trim(), "sandbox");
  });

  it("uploads a 20 MiB file in 8 MiB chunks, byte for byte", async () => {
    const data = randomBytes(20 * MiB + 17);
    const posts = uploadPosts;
    const result = await upload(`environments/${env.id}`, "workspace/big.bin", data);
    assert.equal(uploadPosts - posts, 3, "the SDK did not send three chunks");
    assert.equal(result.files[0]?.size_bytes, String(data.length));
    assert.equal(sha(await download(env.id, "workspace/big.bin")), sha(data));
  });

  it("uploads an empty file", async () => {
    const result = await upload(env.id, "workspace/empty.txt", new Uint8Array(0));
    assert.equal(result.files[0]?.size_bytes, "0");
  });

  it("refuses to replace an existing file without overwrite (409 aborted), and replaces it with overwrite=true", async () => {
    // overwrite=false sent explicitly is the same refusal (integration/single-put-upload.test.ts); the SDK retries a 409 four times.
    await assert.rejects(upload(env.id, "workspace/existing.txt", "new"), rejectsWith(409, /already exists.*overwrite=true/));
    assert.equal((await download(env.id, "workspace/existing.txt")).toString(), "original");
    await upload(env.id, "workspace/existing.txt", "replaced", { overwrite: true });
    assert.equal((await download(env.id, "workspace/existing.txt")).toString(), "replaced");
    await assert.rejects(upload(env.id, "workspace/notes", "x"), rejectsWith(400, /is a folder/));
  });

  it("unpacks a tar.gz into a folder", async () => {
    // doc-example: agent-environment#upload-and-extract-a-directory-archive: a .tar.gz with extract (python, javascript)
    const archive = await tarGz([
      { name: "./", type: "directory" },
      { name: "./pkg/", type: "directory" },
      { name: "./pkg/main.py", content: "print('unpacked')\n" },
      { name: "./pkg/run.sh", content: "#!/bin/sh\necho run\n", mode: 0o755 },
      { name: "./pkg/link", type: "symlink", linkname: "main.py" },
    ]);
    const result = await upload(env.id, "workspace/unpacked", archive, { extract: true });
    assert.deepEqual(
      // The document's types are file and directory: a link is a "file" whose emulator_type says what it is.
      result.files.map((file) => [file.path, file.type, (file as { emulator_type?: string }).emulator_type]),
      [
        ["workspace/unpacked/pkg", "directory", undefined],
        ["workspace/unpacked/pkg/main.py", "file", undefined],
        ["workspace/unpacked/pkg/run.sh", "file", undefined],
        ["workspace/unpacked/pkg/link", "file", "symlink"],
      ],
    );
    assert.equal((await download(env.id, "workspace/unpacked/pkg/link")).toString(), "print('unpacked')\n");
    assert.equal(await bashIn(env.id, "/workspace/unpacked/pkg/run.sh; stat -c %U /workspace/unpacked/pkg/main.py"), "run\nsandbox\n");
    assert.equal((await bashIn(env.id, "ls -A /tmp/.emulator-uploads | wc -l")).trim(), "0", "a staging file was left behind");
  });

  it("unpacks a zip", async () => {
    const archive = zip([
      { name: "docs", type: "directory" },
      { name: "docs/guide.md", content: "# guide\n" },
      { name: "top.txt", content: "top" },
    ]);
    const result = await upload(env.id, "workspace/unzipped", archive, { extract: true });
    assert.deepEqual(
      result.files.map((file) => file.path),
      ["workspace/unzipped/docs", "workspace/unzipped/docs/guide.md", "workspace/unzipped/top.txt"],
    );
    assert.equal((await download(env.id, "workspace/unzipped/docs/guide.md")).toString(), "# guide\n");
  });

  it("refuses archives with escaping entries, touching nothing", async () => {
    const cases: Array<[string, Buffer, RegExp]> = [
      [
        "dotdot",
        await tarGz([
          { name: "ok.txt", content: "ok" },
          { name: "../escaped.txt", content: "x" },
        ]),
        /contains "\.\."/,
      ],
      [
        "absolute",
        await tarGz([
          { name: "ok.txt", content: "ok" },
          { name: "/tmp/escaped.txt", content: "x" },
        ]),
        /absolute/,
      ],
      [
        "symlink",
        await tarGz([
          { name: "ok.txt", content: "ok" },
          { name: "out", type: "symlink", linkname: "../../../etc" },
        ]),
        /points outside/,
      ],
      [
        "zip",
        zip([
          { name: "ok.txt", content: "ok" },
          { name: "../escaped.txt", content: "x" },
        ]),
        /contains "\.\."/,
      ],
    ];
    for (const [label, archive, message] of cases) {
      await assert.rejects(upload(env.id, `workspace/refused-${label}`, archive, { extract: true }), rejectsWith(400, message));
    }
    const left = await bashIn(env.id, "ls -d /workspace/refused-* /workspace/escaped.txt /tmp/escaped.txt 2>/dev/null | wc -l");
    assert.equal(left.trim(), "0");
  });

  it("refuses an existing file in an archive with overwrite=false, and something that is no archive", async () => {
    const archive = await tarGz([
      { name: "fresh.txt", content: "fresh" },
      { name: "pkg/main.py", content: "changed" },
    ]);
    await assert.rejects(
      upload(env.id, "workspace/unpacked", archive, { extract: true, overwrite: false }),
      rejectsWith(409, /already exists/),
    );
    assert.equal((await download(env.id, "workspace/unpacked/pkg/main.py")).toString(), "print('unpacked')\n");
    await assert.rejects(download(env.id, "workspace/unpacked/fresh.txt"), rejectsWith(404));
    await assert.rejects(upload(env.id, "workspace/not-an-archive", "plain text", { extract: true }), rejectsWith(400, /not a tar/));
  });

  it("takes the REST examples' single PUT: a binary file, and a .tar.gz with extract=true; overwrite protection applies", async () => {
    const data = randomBytes(3 * MiB + 5);
    const single = await rest("PUT", `/upload/v1beta/environments/${env.id}/files/workspace/single.bin`, {
      body: data,
      headers: { "content-type": "application/octet-stream" },
    });
    assert.equal(single.status, 200, single.text);
    assert.equal(single.json?.files[0].size_bytes, String(data.length));
    assert.equal(sha(await download(env.id, "workspace/single.bin")), sha(data));
    const again = await rest("PUT", `/upload/v1beta/environments/${env.id}/files/workspace/single.bin`, { body: "x" });
    assert.equal(again.status, 409, again.text);
    assert.equal(again.json?.error.code, "aborted");
    // doc-example: agent-environment#upload-and-extract-a-directory-archive: PUT …?extract=true with a .tar.gz body (rest)
    const archive = await tarGz([{ name: "app.py", content: "print('app')\n" }]);
    const extracted = await rest("PUT", `/upload/v1beta/environments/${env.id}/files/workspace/rest-src/?extract=true`, {
      body: archive,
      headers: { "content-type": "application/x-tar" },
    });
    assert.equal(extracted.status, 200, extracted.text);
    assert.equal((await download(env.id, "workspace/rest-src/app.py")).toString(), "print('app')\n");
  });

  it("speaks the resumable protocol: offsets, query, a wrong total, unknown uploads", async () => {
    const start = (path: string, length: number, key = KEY) =>
      rest("PUT", `/upload/v1beta/environments/${env.id}/files/${path}`, {
        key,
        headers: {
          "x-goog-upload-protocol": "resumable",
          "x-goog-upload-command": "start",
          "x-goog-upload-header-content-length": String(length),
          "x-goog-upload-header-content-type": "text/plain",
        },
      });
    const started = await start("workspace/resumable.txt", 10);
    assert.equal(started.status, 200);
    const url = started.headers.get("x-goog-upload-url")!;
    assert.match(url, /\/upload\/v1beta\/environments\/env_\w+\/files\/workspace\/resumable\.txt\?upload_id=/);
    const send = (command: string, offset: number | null, body: string, key = KEY) =>
      fetch(url, {
        method: "POST",
        headers: {
          "x-goog-api-key": key,
          "x-goog-upload-command": command,
          ...(offset === null ? {} : { "x-goog-upload-offset": String(offset) }),
        },
        body,
      });
    const first = await send("upload", 0, "01234");
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("x-goog-upload-status"), "active");
    const wrongOffset = await send("upload", 3, "xxxxx");
    assert.equal(wrongOffset.status, 400);
    assert.match(((await wrongOffset.json()) as { error: { message: string } }).error.message, /send the bytes from offset 5/);
    assert.equal((await send("upload", 5, "56789", OTHER_KEY)).status, 404);
    const query = await send("query", null, "");
    assert.equal(query.headers.get("x-goog-upload-size-received"), "5");
    const last = await send("upload, finalize", 5, "56789");
    assert.equal(last.status, 200);
    assert.equal(last.headers.get("x-goog-upload-status"), "final");
    assert.equal(((await last.json()) as { files: EnvironmentFile[] }).files[0]?.size_bytes, "10");
    assert.equal((await download(env.id, "workspace/resumable.txt")).toString(), "0123456789");
    assert.equal((await send("upload", 10, "more")).status, 404, "a finished upload takes no more bytes");

    const short = await start("workspace/short.txt", 10);
    const shortUrl = short.headers.get("x-goog-upload-url")!;
    const finalized = await fetch(shortUrl, {
      method: "POST",
      headers: { "x-goog-api-key": KEY, "x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0" },
      body: "12345",
    });
    assert.equal(finalized.status, 400);
    assert.match(((await finalized.json()) as { error: { message: string } }).error.message, /after 5 bytes.*announced 10/);
    await assert.rejects(download(env.id, "workspace/short.txt"), rejectsWith(404));

    const long = await start("workspace/long.txt", 3);
    const tooMuch = await fetch(long.headers.get("x-goog-upload-url")!, {
      method: "POST",
      headers: { "x-goog-api-key": KEY, "x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0" },
      body: "1234",
    });
    assert.equal(tooMuch.status, 400);

    const notResumable = await rest("PUT", `/upload/v1/environments/${env.id}/files/workspace/x.txt`, {
      headers: { "x-goog-upload-protocol": "multipart" },
    });
    assert.equal(notResumable.status, 400);
    assert.match(notResumable.json?.error.message, /resumable/);
    assert.equal(
      (
        await rest("POST", `/upload/v1/environments/${env.id}/files/workspace/x.txt?upload_id=nope`, {
          headers: { "x-goog-upload-command": "upload" },
        })
      ).status,
      404,
    );
    assert.equal((await bashIn(env.id, "ls -A /tmp/.emulator-uploads | wc -l")).trim(), "0", "a staging file was left behind");
  });
});

describe("files: paths cannot escape the sandbox's reach", () => {
  let env: Environment;

  before(async () => {
    env = await createEnvironment({ sources: [{ type: "inline", target: "workspace/in.txt", content: "in" }] });
    await bashIn(env.id, "ln -s /proc/self /workspace/proc-link && ln -s /etc /workspace/etc-link && ln -s /dev/zero /workspace/zero");
  });

  it("refuses .. and absolute paths with a 400", async () => {
    for (const path of [
      `/v1/environments/${env.id}/files/workspace/../../etc/passwd?alt=media`,
      `/v1/environments/${env.id}/files/workspace/%2E%2E/etc`,
      `/v1/environments/${env.id}/files//etc/passwd?alt=media`,
      `/v1/environments/${env.id}/files/workspace%5Cin.txt`,
    ]) {
      const answer = await rawGet(path);
      assert.equal(answer.status, 400, `${path}: ${answer.body}`);
      assert.match(answer.body, /"INVALID_ARGUMENT"/);
    }
    await assert.rejects(listFiles(env.id, "/etc"), rejectsWith(400, /is absolute.*write "etc"/));
  });

  it("refuses symlinks into the pseudo file systems with a 403", async () => {
    await assert.rejects(download(env.id, "workspace/proc-link/environ"), rejectsWith(403, /\/proc/));
    await assert.rejects(listFiles(env.id, "workspace/proc-link"), rejectsWith(403, /\/proc/));
    await assert.rejects(download(env.id, "workspace/zero"), rejectsWith(403, /\/dev/));
    // Listing shows the links themselves, never what they point to.
    const links = (await listFiles(env.id, "workspace"))
      .files!.filter((file) => (file as { emulator_type?: string }).emulator_type === "symlink")
      .map((file) => file.name);
    assert.deepEqual(links, ["etc-link", "proc-link", "zero"]);
  });

  it("refuses uploads into system folders, directly or through a symlink, touching nothing", async () => {
    await assert.rejects(upload(env.id, "etc/evil.conf", "x"), rejectsWith(403, /\/etc, a system folder/));
    await assert.rejects(upload(env.id, "workspace/etc-link/evil.conf", "x"), rejectsWith(403, /leads to \/etc\/evil\.conf/));
    await assert.rejects(upload(env.id, "opt/emulator/executor/main.js", "x"), rejectsWith(403, /\/opt\/emulator/));
    // The sandbox's root, reached through a link (\"\" is the workspace): each entry is refused by the same rule.
    await bashIn(env.id, "ln -sfn / /workspace/root-link");
    await assert.rejects(
      upload(env.id, "workspace/root-link", await tarGz([{ name: "etc/evil.conf", content: "x" }]), { extract: true }),
      rejectsWith(400, /\/etc, a system folder/),
    );
    assert.equal(
      (
        await bashIn(
          env.id,
          "rm /workspace/root-link; test -e /etc/evil.conf && echo present; ls -A /tmp/.emulator-uploads 2>/dev/null | wc -l",
        )
      ).trim(),
      "0",
    );
  });

  it("answers 404 for another API key's environment, whatever the call", async () => {
    await assert.rejects(getEnvironment(env.id, other), rejectsWith(404));
    await assert.rejects(other.environments.delete(env.id), rejectsWith(404));
    await assert.rejects(listFiles(env.id, "workspace", {}, other), rejectsWith(404));
    await assert.rejects(download(env.id, "workspace/in.txt", other), rejectsWith(404));
    await assert.rejects(upload(env.id, "workspace/theirs.txt", "x", {}, other), rejectsWith(404));
    await assert.rejects(download(env.id, "workspace/theirs.txt"), rejectsWith(404));
    assert.equal((await download(env.id, "workspace/in.txt")).toString(), "in");
  });
});
