// The per-sandbox disk limit (EMULATOR_SANDBOX_DISK_MB; docs/security.md#disk). Two kernel mechanisms,
// neither of which code inside the sandbox can lift (it has no capabilities and no-new-privileges):
//
// - a storage quota on the container's writable layer (`--storage-opt size=`), where the engine can
//   enforce one: overlay2 on xfs mounted with pquota. Every write past the limit then fails with ENOSPC,
//   whatever file and folder it goes to. Probed once per engine, since most engines (ext4 data roots,
//   this project's development machine among them) refuse the option outright;
// - always, the file-size resource limit (RLIMIT_FSIZE, `--ulimit fsize=`), inherited by the executor
//   and everything it starts: no one file grows past the limit (a writer gets SIGXFSZ or EFBIG), and a
//   process cannot raise its hard limit without CAP_SYS_RESOURCE.
//
// Without a quota the kernel does not bound the total of many files: the executor's disk guard does
// (sandbox-image/executor-go/disk_guard.go), started by the Docker runtime with --disk-limit-mb.

import type Docker from "dockerode";

export type StorageQuota = "supported" | "unsupported";

/**
 * Whether the engine enforces `--storage-opt size=` on new containers: a container is created (never
 * started) with it and removed. An engine without quota support refuses the create.
 */
export async function probeStorageQuota(
  docker: Docker,
  image: string,
  labels: Record<string, string>,
): Promise<{ quota: StorageQuota; detail: string }> {
  let container: Docker.Container | undefined;
  try {
    container = await docker.createContainer({
      Image: image,
      Cmd: ["true"],
      // The emulator's own labels, so a probe left behind by a crash is removed at the next start.
      Labels: labels,
      HostConfig: { NetworkMode: "none", StorageOpt: { size: "64m" }, LogConfig: { Type: "none", Config: {} } },
    });
    return { quota: "supported", detail: "the engine enforces storage quotas (--storage-opt size)" };
  } catch (error) {
    return { quota: "unsupported", detail: (error as Error).message.replace(/^\(HTTP code \d+\)[^:]*:\s*/, "").trim() };
  } finally {
    await container?.remove({ force: true }).catch(() => undefined);
  }
}

/** The container settings that bound its disk use to `limitMb` MiB. */
export function diskLimitHostConfig(limitMb: number, quota: StorageQuota): Pick<Docker.HostConfig, "StorageOpt" | "Ulimits"> {
  const bytes = limitMb * 1024 * 1024;
  return {
    ...(quota === "supported" ? { StorageOpt: { size: `${limitMb}m` } } : {}),
    Ulimits: [{ Name: "fsize", Soft: bytes, Hard: bytes }],
  };
}
