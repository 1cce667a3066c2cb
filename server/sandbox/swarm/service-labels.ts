// A sandbox service's own labels (Spec.Labels), changed in place: how a warm pool service becomes an
// environment's (swarm-runtime.ts claimPooled). Only the service's labels change, not its task template,
// so Swarm restarts nothing: the task that runs, its files and its channel stay as they are. The task's
// container keeps the labels it was made with (a pooled one's say pooled, without an owner); the
// service's are what list() reads.

import type Docker from "dockerode";
import { withEngineTimeout } from "../docker/engine-errors.js";

/** Another update raced this one (Swarm's "update out of sequence"): read the new version and try again, this often. */
const ATTEMPTS = 3;

export async function relabelService(
  docker: Docker,
  serviceId: string,
  labels: Record<string, string>,
  engineTimeoutMs: number,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const service = (await withEngineTimeout(docker.getService(serviceId).inspect(), engineTimeoutMs, "reading a sandbox service")) as {
      Version: { Index: number };
      Spec: Docker.ServiceSpec;
    };
    try {
      await withEngineTimeout(
        docker
          .getService(serviceId)
          .update({ ...service.Spec, Labels: { ...service.Spec.Labels, ...labels }, version: service.Version.Index }),
        engineTimeoutMs,
        "relabelling a sandbox service",
      );
      return;
    } catch (error) {
      if (attempt >= ATTEMPTS || !/out of sequence/i.test((error as Error).message)) throw error;
    }
  }
}
