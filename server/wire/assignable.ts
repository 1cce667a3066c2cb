// Compile-time checks that the emulator's hand-written request schemas let through only bodies the
// service's OpenAPI document declares (server/wire/openapi-types.ts, generated from it): each zod request
// schema's parsed output is held to the operation's generated request body type beside the schema, so a
// field whose type drifts from the document fails tsc. The deliberate differences of
// schemas/interactions.requests.exceptions.json are all stricter (fewer values let through), which such a
// check allows as it is. A field a schema reads more loosely than the document (a `type` as any string:
// the document check, server/http/documented-requests.ts, has held the body to the document before the
// route's schema runs) is left out with `Without`, and the check's comment says why.

/** `A`, when `A` is assignable to `B`; otherwise tsc fails here, naming the field that differs. */
export type Assignable<A extends B, B> = A;

/**
 * `T` without the fields `K`, keeping its other named fields: `Omit` of a zod loose object (which has an
 * index signature) would keep only the index signature, and a check of it would pass whatever the fields.
 */
export type Without<T, K extends PropertyKey> = { [P in keyof T as P extends K ? never : P]: T[P] };
