// The vocabulary the protocol's tables are written in: small descriptors of what a header field may
// hold. A descriptor is plain data; TypeOf<> turns it into the TypeScript type of the values it accepts,
// and checkField() (protocol-check.ts) checks an untrusted value against it. Both sides derive their
// types and their checks from the same descriptor, so a type can never promise what was not checked.
//
// Dependency-free, like every protocol file; protocol-go.ts renders these descriptors as Go for the executor.

export interface StringField {
  readonly kind: "string";
  readonly nonEmpty: boolean;
  /** Substrings the value must not contain, e.g. NUL, which the OS would take as the end of a path or argument. */
  readonly forbidden: readonly string[];
}

/** A safe integer within [min, max]. */
export interface IntegerField {
  readonly kind: "integer";
  readonly min: number;
  readonly max: number;
}

export interface NumberField {
  readonly kind: "number";
}

export interface BooleanField {
  readonly kind: "boolean";
}

export interface OneOfField<Value extends string = string> {
  readonly kind: "oneOf";
  readonly values: readonly Value[];
}

export interface NullableField<Of extends Field = Field> {
  readonly kind: "nullable";
  readonly of: Of;
}

/** Only meaningful in a shape: the key may be absent. */
export interface OptionalField<Of extends Field = Field> {
  readonly kind: "optional";
  readonly of: Of;
}

export interface ArrayField<Of extends Field = Field> {
  readonly kind: "array";
  readonly of: Of;
  readonly minItems: number;
  readonly maxItems: number;
}

/** An object used as a map: any keys the `keys` descriptor accepts, each with a value of `values`. */
export interface RecordField<Of extends Field = Field> {
  readonly kind: "record";
  readonly keys: StringField;
  readonly values: Of;
}

export interface ObjectField<S extends Shape = Shape> {
  readonly kind: "object";
  readonly shape: S;
  /**
   * A rule spanning several fields, run once each field passed: the problem, or null. object() types its
   * parameter as ObjectOf<S>; it is stored as `never` so that descriptors stay plain, non-recursive data
   * to the compiler (any rule is assignable to it, and only the checker calls it).
   */
  readonly rule?: (value: never) => string | null;
}

/**
 * Objects told apart by the string in their `tag` field (a request's `op`, a message's `type`), each
 * member with its own shape, all of them with the `common` fields too.
 */
export interface TaggedUnionField<Tag extends string = string, Common extends Shape = Shape, Members extends MemberMap = MemberMap> {
  readonly kind: "taggedUnion";
  readonly tag: Tag;
  readonly common: Common;
  readonly members: Members;
  /** What to call a member in error messages, e.g. "readFile result" (defaults to the tag value). */
  readonly label: (tagValue: string) => string;
}

export type Field =
  | StringField
  | IntegerField
  | NumberField
  | BooleanField
  | OneOfField
  | NullableField
  | OptionalField
  | ArrayField
  | RecordField
  | ObjectField
  | TaggedUnionField;

/** The fields of an object, by name. */
export type Shape = { readonly [name: string]: Field };

export type MemberMap = { readonly [tagValue: string]: ObjectField };

// ---- From descriptors to types ----

/** The type of the values a descriptor accepts (what the checker returns for it). */
export type TypeOf<F extends Field> = TypeByKind<F>[F["kind"]];

/**
 * One entry per kind, looked up by the descriptor's `kind`: a single indexed access instead of a chain
 * of conditional types keeps nested descriptors (a result holding entries holding file types) well
 * within the compiler's instantiation depth.
 */
interface TypeByKind<F extends Field> {
  string: string;
  integer: number;
  number: number;
  boolean: boolean;
  oneOf: F extends OneOfField<infer Value> ? Value : never;
  nullable: F extends NullableField<infer Of> ? TypeOf<Of> | null : never;
  optional: F extends OptionalField<infer Of> ? TypeOf<Of> | undefined : never;
  array: F extends ArrayField<infer Of> ? TypeOf<Of>[] : never;
  record: F extends RecordField<infer Of> ? Record<string, TypeOf<Of>> : never;
  object: F extends ObjectField<infer S> ? ObjectOf<S> : never;
  taggedUnion: F extends TaggedUnionField<infer Tag, infer Common, infer Members> ? UnionOf<Tag, Common, Members> : never;
}

type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends OptionalField ? K : never }[keyof S];

/** The object a shape describes: optional fields become optional properties. */
export type ObjectOf<S extends Shape> = Flatten<
  { -readonly [K in keyof S as K extends OptionalKeys<S> ? never : K]: TypeOf<S[K]> } & {
    -readonly [K in keyof S as K extends OptionalKeys<S> ? K : never]?: TypeOf<S[K]>;
  }
>;

/** One member of a tagged union: its tag, the common fields and its own. */
type MemberOf<Tag extends string, Common extends Shape, Members extends MemberMap, Value extends keyof Members & string> =
  Members[Value] extends ObjectField<infer S> ? Flatten<{ [K in Tag]: Value } & ObjectOf<Common> & ObjectOf<S>> : never;

type UnionOf<Tag extends string, Common extends Shape, Members extends MemberMap> = MembersOf<Tag, Common, Members, keyof Members & string>;

/** Distributes over the tag values, one member each. */
type MembersOf<
  Tag extends string,
  Common extends Shape,
  Members extends MemberMap,
  Value extends keyof Members & string,
> = Value extends unknown ? MemberOf<Tag, Common, Members, Value> : never;

/** Shows an intersection as the single object type it amounts to (in editors and error messages). */
type Flatten<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;

// ---- Descriptors ----

export function string(options: { nonEmpty?: boolean; forbidden?: readonly string[] } = {}): StringField {
  return { kind: "string", nonEmpty: options.nonEmpty ?? false, forbidden: options.forbidden ?? [] };
}

/** Any string, the empty one included. */
export const text = string();

/** A path or argument handed to the OS: not empty, and no NUL byte (which would silently cut it short). */
export const path = string({ nonEmpty: true, forbidden: ["\0"] });

export function integer(min: number, max: number = Number.MAX_SAFE_INTEGER): IntegerField {
  return { kind: "integer", min, max };
}

/** Sizes, counts, offsets, durations and request ids. */
export const nonNegativeInteger = integer(0);

export const positiveInteger = integer(1);

/** Times in milliseconds since the epoch; fractional, and possibly before 1970. */
export const number: NumberField = { kind: "number" };

export const boolean: BooleanField = { kind: "boolean" };

export function oneOf<Value extends string>(...values: Value[]): OneOfField<Value> {
  return { kind: "oneOf", values };
}

export function nullable<Of extends Field>(of: Of): NullableField<Of> {
  return { kind: "nullable", of };
}

export function optional<Of extends Field>(of: Of): OptionalField<Of> {
  return { kind: "optional", of };
}

export function array<Of extends Field>(of: Of, bounds: { minItems?: number; maxItems?: number } = {}): ArrayField<Of> {
  return { kind: "array", of, minItems: bounds.minItems ?? 0, maxItems: bounds.maxItems ?? Number.MAX_SAFE_INTEGER };
}

export function record<Of extends Field>(keys: StringField, values: Of): RecordField<Of> {
  return { kind: "record", keys, values };
}

export function object<S extends Shape>(shape: S, rule?: (value: ObjectOf<S>) => string | null): ObjectField<S> {
  return rule === undefined ? { kind: "object", shape } : { kind: "object", shape, rule };
}

export function taggedUnion<Tag extends string, Common extends Shape, Members extends MemberMap>(
  tag: Tag,
  members: Members,
  options: { common: Common; label?: (tagValue: string) => string },
): TaggedUnionField<Tag, Common, Members> {
  return { kind: "taggedUnion", tag, common: options.common, members, label: options.label ?? ((tagValue) => tagValue) };
}
