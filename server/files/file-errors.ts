// A file operation that failed inside the sandbox, as the API error a caller can act on. Client faults
// stay 4xx (the SDK retries 5xx); a sandbox that stopped answering is 503, which retrying may cure.

import {
  AbortedError,
  ApiError,
  FailedPreconditionError,
  InternalError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  UnavailableError,
} from "../common/errors.js";
import { SandboxFileError, SandboxLostError, SandboxUnavailableError } from "../sandbox/runtime.js";

/** `shown` is the path as the caller gave it (in the API's listed form, from the sandbox root). */
export function fileApiError(error: unknown, shown: string, environmentId: string): ApiError {
  if (error instanceof ApiError) return error;
  // Lost with its machine: retrying cannot bring the files back, so not a 503.
  if (error instanceof SandboxLostError) return new FailedPreconditionError(`Environment ${environmentId} is lost: ${error.message}.`);
  if (error instanceof SandboxUnavailableError) {
    return new UnavailableError(`The sandbox of environment ${environmentId} stopped answering: ${error.message}`);
  }
  if (!(error instanceof SandboxFileError)) return new InternalError(`Internal error: ${(error as Error)?.message ?? String(error)}`);
  const path = `"${shown}"`;
  switch (error.code) {
    case "ENOENT":
    case "ENOTDIR":
      return new NotFoundError(`${path} not found in environment ${environmentId} (${error.message}).`);
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new PermissionDeniedError(`${path}: the sandbox user may not do this there (${error.message}).`);
    case "EEXIST":
      return new AbortedError(`${path} already exists; pass overwrite=true to replace it.`);
    case "EISDIR":
      return new InvalidArgumentError(`${path} is a folder (${error.message}).`);
    case "ENOSPC":
    case "EDQUOT":
    case "EFBIG":
      return new FailedPreconditionError(
        `${path}: the sandbox has no room for this (${error.message}): no file, nor all of the sandbox's files together, may grow past the sandbox's disk limit (EMULATOR_SANDBOX_DISK_MB); delete files you do not need, or raise the setting.`,
      );
    case "ELOOP":
    case "EINVAL":
    case "ENAMETOOLONG":
    case "EOFFSET":
      return new InvalidArgumentError(`${path}: ${error.message}.`);
    default:
      return new InternalError(`${path}: ${error.message}`);
  }
}
