// Every refusal the API makes is one of these, rendered as the service's error JSON
// {"error":{"code","message","status"}}: `code` the documented string of its kind (ErrorCode below),
// `status` Google's canonical status beside it (docs/fidelity.md). Messages say what to fix, not only
// what went wrong.
//
// Client faults must stay 4xx: the official SDK retries 408/409/429/5xx up to four times, so a
// misclassified 500 turns one bad request into five.

export type GoogleStatus =
  | "INVALID_ARGUMENT"
  | "UNAUTHENTICATED"
  | "PERMISSION_DENIED"
  | "NOT_FOUND"
  | "ALREADY_EXISTS"
  | "ABORTED"
  | "FAILED_PRECONDITION"
  | "RESOURCE_EXHAUSTED"
  | "INTERNAL"
  | "UNAVAILABLE";

/**
 * The codes of the service's errors, as its documentation's API errors page lists them
 * (ai.google.dev/gemini-api/docs/api-errors): `error.code` of an error answer, of a stream's `error`
 * event and of an interaction's `errors[]`. The OpenAPI document and both SDKs type it as a string; the
 * Python SDK cannot read a number there (docs/api.md#errors).
 */
export type ErrorCode =
  | "invalid_request"
  | "parameter_unknown"
  | "failed_precondition"
  | "authentication"
  | "permission_denied"
  | "not_found"
  | "model_not_found"
  | "already_exists"
  | "aborted"
  | "rate_limit_exceeded"
  | "quota_exceeded"
  | "too_many_requests"
  | "cancelled"
  | "api_error"
  | "unimplemented"
  | "service_unavailable"
  | "deadline_exceeded"
  | "malformed_function_call";

/** The documented code of each canonical status, where an error names no more precise one. */
const CODE_OF_STATUS: Readonly<Record<GoogleStatus, ErrorCode>> = {
  INVALID_ARGUMENT: "invalid_request",
  UNAUTHENTICATED: "authentication",
  PERMISSION_DENIED: "permission_denied",
  NOT_FOUND: "not_found",
  ALREADY_EXISTS: "already_exists",
  ABORTED: "aborted",
  FAILED_PRECONDITION: "failed_precondition",
  // [choice] The emulator's 429s are counts a key may have (fault rules), lifted by deleting: the
  // documented "quota" code, not the per-minute rate one.
  RESOURCE_EXHAUSTED: "quota_exceeded",
  INTERNAL: "api_error",
  UNAVAILABLE: "service_unavailable",
};

/** The documented code of an error of this canonical status that names no more precise one. */
export function errorCodeOf(status: GoogleStatus): ErrorCode {
  return CODE_OF_STATUS[status];
}

/**
 * The root of the server's errors: each class is named after itself in stack traces and logs. Below
 * it, an ApiError is a refusal a client sees; a CodedError is an internal failure with a
 * machine-readable code (an errno from the sandbox, a stream's failure kind) that the service which
 * meets it translates into an ApiError, a step's error text or a 5xx.
 */
export class EmulatorError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class CodedError extends EmulatorError {
  constructor(
    readonly code: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export class ApiError extends EmulatorError {
  /** The documented code: the status's own unless the error names a more precise one. */
  readonly code: ErrorCode;

  constructor(
    readonly httpStatus: number,
    readonly status: GoogleStatus,
    message: string,
    code?: ErrorCode,
  ) {
    super(message);
    this.code = code ?? errorCodeOf(status);
  }

  toBody(): { error: { code: ErrorCode; message: string; status: GoogleStatus } } {
    return { error: { code: this.code, message: this.message, status: this.status } };
  }
}

export class InvalidArgumentError extends ApiError {
  constructor(message: string, code?: "invalid_request" | "parameter_unknown") {
    super(400, "INVALID_ARGUMENT", message, code);
  }
}

export class UnauthenticatedError extends ApiError {
  constructor(message: string) {
    super(401, "UNAUTHENTICATED", message);
  }
}

export class PermissionDeniedError extends ApiError {
  constructor(message: string) {
    super(403, "PERMISSION_DENIED", message);
  }
}

export class NotFoundError extends ApiError {
  constructor(message: string, code?: "not_found" | "model_not_found") {
    super(404, "NOT_FOUND", message, code);
  }
}

/** 409. Note: the official SDK retries 409 up to four times before giving up. */
export class AlreadyExistsError extends ApiError {
  constructor(message: string) {
    super(409, "ALREADY_EXISTS", message);
  }
}

/**
 * 409 ABORTED: a write that would replace what is there without being asked to (the files API's
 * overwrite protection, as the environments page documents it). Note: the official SDK retries 409 up
 * to four times; the refusal answers the same each time.
 */
export class AbortedError extends ApiError {
  constructor(message: string) {
    super(409, "ABORTED", message);
  }
}

export class FailedPreconditionError extends ApiError {
  constructor(message: string) {
    super(400, "FAILED_PRECONDITION", message);
  }
}

/** 429. Note: the official SDK retries 429 up to four times; use it only where waiting or deleting helps. */
export class ResourceExhaustedError extends ApiError {
  constructor(message: string) {
    super(429, "RESOURCE_EXHAUSTED", message);
  }
}

export class PayloadTooLargeError extends ApiError {
  constructor(message: string) {
    super(413, "INVALID_ARGUMENT", message);
  }
}

/** The sandbox backend (Docker) is not reachable; retrying later may help. */
export class UnavailableError extends ApiError {
  constructor(message: string) {
    super(503, "UNAVAILABLE", message);
  }
}

export class InternalError extends ApiError {
  constructor(message: string) {
    super(500, "INTERNAL", message);
  }
}

/** One entry of a google.rpc.BadRequest detail: the path of the field (absent for the body itself) and what is wrong. */
export interface FieldViolation {
  field?: string;
  description: string;
}

/**
 * A 400 that lists its problems field by field, as Google's APIs do: the message holds every
 * description (one per line) and `details` a google.rpc.BadRequest with the fieldViolations. Fields
 * the request may not have are `parameter_unknown`, as the service's errors page names them.
 */
export class FieldViolationsError extends InvalidArgumentError {
  constructor(
    readonly fieldViolations: readonly FieldViolation[],
    code?: "invalid_request" | "parameter_unknown",
  ) {
    super(fieldViolations.map((violation) => violation.description).join("\n"), code);
  }

  override toBody(): ReturnType<ApiError["toBody"]> & { error: { details: unknown[] } } {
    const body = super.toBody();
    const detail = { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: this.fieldViolations };
    return { error: { ...body.error, details: [detail] } };
  }
}
