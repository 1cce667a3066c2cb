// POST /{v}/environments: a new environment made exactly as an interaction's `environment` object makes
// one (same validation, same refusals, nothing left behind on a refusal), or a fork of another.

import { environmentIdOf, type CreateEnvironmentRequest } from "../api/create-environment.js";
import { InvalidArgumentError } from "../common/errors.js";
import type { EnvironmentRecord } from "./environment-store.js";
import type { EnvironmentService } from "./environment-service.js";

export async function createEnvironment(
  service: EnvironmentService,
  owner: string,
  request: CreateEnvironmentRequest,
): Promise<EnvironmentRecord> {
  const { from_environment: from, sources, network, env } = request;
  if (from !== undefined) {
    const given = [(sources?.length ?? 0) > 0 ? "sources" : null, Object.keys(env ?? {}).length > 0 ? "env" : null].filter(Boolean);
    if (given.length > 0) {
      throw new InvalidArgumentError(
        `from_environment copies the files and variables of ${from}, so ${given.join(" and ")} must be empty; ` +
          'create the fork first, then add them with an interaction\'s environment {type: "remote", environment_id, sources, env}.',
      );
    }
    return service.fork(owner, environmentIdOf(from), network);
  }
  let create: () => Promise<EnvironmentRecord>;
  try {
    create = await service.plan(owner, { type: "remote", sources, network, env });
  } catch (error) {
    throw asTopLevelFields(error);
  }
  return create();
}

/** The shared checks name `environment.sources[0]…`; in this request those fields are top-level. */
function asTopLevelFields(error: unknown): unknown {
  if (!(error instanceof InvalidArgumentError)) return error;
  const message = error.message.replace(/\benvironment\.(sources|network|env)\b/g, "$1");
  return message === error.message ? error : new InvalidArgumentError(message);
}
