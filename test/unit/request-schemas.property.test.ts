// Property tests of the request schemas read at the HTTP edge (issue 9): whatever a client sends, parsing
// fails only with the route's typed error (a ZodError from the schema, an InvalidArgumentError from
// parseOrThrow, which becomes a 400 naming the field), never with anything that would be a 500; the
// checks that run on a parsed request before anything is created (the input's text, the sources, the
// variables, the network) do the same; and every well-formed request parses, keeping what it said.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { z } from "zod";
import { egressPolicySchema, isInjectableHeaderName, whyNotInjectable } from "../../proxy/index.js";
import { createEnvironmentSchema } from "../../server/api/create-environment.js";
import { createInteractionSchema, TOOL_TYPES, type CreateInteractionRequest } from "../../server/api/create-interaction.js";
import { readInput } from "../../server/api/interaction-input.js";
import { planFromInput } from "../../server/planners/scripted/scripted-planner.js";
import { InvalidArgumentError } from "../../server/common/errors.js";
import { createCredentialSchema, updateCredentialSchema } from "../../server/credentials/credential-schemas.js";
import { CredentialStore } from "../../server/credentials/credential-store.js";
import { checkNetwork } from "../../server/egress/network-config.js";
import { parseOrThrow } from "../../server/http/zod-errors.js";
import { prepareEnvVars } from "../../server/sources/environment-variables.js";
import { prepareSources } from "../../server/sources/inline-sources.js";
import { openMemoryDatabase } from "../../server/store/database.js";
import { runs } from "../support/property-runs.js";

// The shared seed, like every property test: CI sees the same inputs each run, and FC_SEED replays a failure.
const RUNS = runs(300);

const SCHEMAS = {
  createInteractionSchema,
  createEnvironmentSchema,
  createCredentialSchema,
  updateCredentialSchema,
} as const satisfies Record<string, z.ZodType>;

/** Keys a hostile client likes, and the schemas' own field names (so generated objects reach deep). */
const keys = fc.oneof(
  { weight: 3, arbitrary: fc.string() },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "__proto__",
      "constructor",
      "toString",
      "type",
      "agent",
      "input",
      "environment",
      "sources",
      "network",
      "allowlist",
      "env",
      "content",
      "encoding",
      "target",
      "id",
      "token",
      "injection_location",
      "from_environment",
    ),
  },
);

/** Any JavaScript value (what a caller of the schema could hand it), including the odd ones. */
const anything = fc.anything({
  key: keys,
  maxDepth: 4,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
});

/** What express.json can actually deliver: any JSON value, object keys included. */
const json = fc
  .jsonValue({ maxDepth: 5 })
  .chain((value) => fc.oneof(fc.constant(value), fc.dictionary(keys, fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 })));

// --- Well-formed requests -------------------------------------------------------------------------

const text = fc.string({ maxLength: 40 });
const nonEmpty = fc.string({ minLength: 1, maxLength: 40 });
/** Keys of the request's maps: any string ("__proto__" is kept, user-json-kept.property.test.ts; filtered here only because fc.dictionary assigns keys). */
const mapKey = (base: fc.Arbitrary<string>) => base.filter((key) => key !== "__proto__");
const headers = fc.dictionary(mapKey(nonEmpty), text, { maxKeys: 3, noNullPrototype: true });

const source = fc.record(
  { type: fc.constantFrom("inline", "repository", "gcs", "other"), target: text, content: text, encoding: text, source: text, extra: text },
  { requiredKeys: [], noNullPrototype: true },
);

const network = fc.oneof(
  fc.constant("disabled" as const),
  fc.record(
    {
      allowlist: fc.oneof(
        fc.constant("disabled" as const),
        fc.array(
          fc.record(
            { domain: nonEmpty, transform: fc.oneof(headers, fc.array(headers, { maxLength: 2 })), credential: text },
            { requiredKeys: ["domain"], noNullPrototype: true },
          ),
          { maxLength: 3 },
        ),
      ),
    },
    { requiredKeys: [], noNullPrototype: true },
  ),
);

const env = fc.dictionary(
  mapKey(nonEmpty),
  fc.oneof(text, fc.record({ value: text, credential: text }, { requiredKeys: [], noNullPrototype: true })),
  { maxKeys: 3, noNullPrototype: true },
);

const environmentObject = fc.record(
  {
    type: fc.constant("remote" as const),
    environment_id: nonEmpty,
    sources: fc.array(source, { maxLength: 3 }),
    network,
    env,
    future_field: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ["type"], noNullPrototype: true },
);

const content = fc.record({ type: text, text }, { requiredKeys: ["type"], noNullPrototype: true });

const interactionRequest = fc.record(
  {
    agent: nonEmpty,
    model: nonEmpty,
    agent_config: fc.record({ type: text }, { noNullPrototype: true }),
    input: fc.oneof(text, content, fc.array(content, { maxLength: 3 })),
    system_instruction: text,
    // The supported tool types (the API errors page): another one is a 400 (test/integration/doc-examples-api-errors.test.ts).
    tools: fc.array(fc.record({ type: fc.constantFrom(...TOOL_TYPES) }, { noNullPrototype: true }), { maxLength: 3 }),
    environment: fc.oneof(nonEmpty, environmentObject),
    previous_interaction_id: nonEmpty,
    stream: fc.boolean(),
    store: fc.boolean(),
    background: fc.boolean(),
    labels: fc.dictionary(mapKey(text), text, { maxKeys: 3, noNullPrototype: true }),
    some_new_field: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: [], noNullPrototype: true },
);

const environmentRequest = fc.record(
  { from_environment: nonEmpty, sources: fc.array(source, { maxLength: 3 }), network, env },
  { requiredKeys: [], noNullPrototype: true },
);

const credentialId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/);
// A header the egress proxy may inject: not Host, Connection, Proxy-*, "__proto__"… (proxy/header-rules.ts).
const headerName = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/).filter((name) => whyNotInjectable(name) === null);
const location = fc.constantFrom("header" as const, "query" as const, "body" as const);

const credentialRequest = fc.oneof(
  fc.record(
    { type: fc.constant("bearer_token" as const), id: credentialId, token: nonEmpty, header_name: headerName, prefix: text },
    { requiredKeys: ["type", "id", "token"], noNullPrototype: true },
  ),
  fc.record(
    {
      type: fc.constant("environment_variable" as const),
      id: credentialId,
      value: nonEmpty,
      injection_location: fc.oneof(location, fc.array(location, { minLength: 1, maxLength: 3 })),
      trusted_domains: fc.array(nonEmpty, { maxLength: 3 }),
    },
    { requiredKeys: ["type", "id", "value", "injection_location"], noNullPrototype: true },
  ),
  fc.record(
    { type: fc.constant("oauth2" as const), id: credentialId, client_id: nonEmpty, client_secret: nonEmpty, refresh_token: nonEmpty },
    { noNullPrototype: true },
  ),
);

const credentialUpdate = fc.record(
  {
    token: nonEmpty,
    header_name: headerName,
    prefix: text,
    value: nonEmpty,
    injection_location: fc.oneof(location, fc.array(location, { minLength: 1, maxLength: 3 })),
    trusted_domains: fc.array(nonEmpty, { maxLength: 3 }),
    client_id: nonEmpty,
    client_secret: nonEmpty,
    refresh_token: nonEmpty,
  },
  { requiredKeys: [], noNullPrototype: true },
);

/** A well-formed value with one field somewhere inside replaced by anything: reaches the nested checks. */
function mutated<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.nat(), anything).map(([value, pick, replacement]) => {
    const copy = structuredClone(value) as unknown;
    const containers: Array<Record<string, unknown> | unknown[]> = [];
    const collect = (node: unknown) => {
      if (typeof node !== "object" || node === null) return;
      containers.push(node as Record<string, unknown>);
      for (const child of Object.values(node)) collect(child);
    };
    collect(copy);
    const target = containers[pick % Math.max(1, containers.length)];
    if (!target) return replacement;
    const fields = Object.keys(target);
    const field = fields.length > 0 ? fields[pick % fields.length]! : "added";
    (target as Record<string, unknown>)[field] = replacement;
    return copy;
  });
}

// --- The properties -------------------------------------------------------------------------------

/** Runs `work`; anything thrown must be one of `allowed`, or the property fails naming what was thrown. */
function throwsOnly(work: () => unknown, allowed: ReadonlyArray<abstract new (...args: never[]) => Error>): void {
  try {
    work();
  } catch (error) {
    if (allowed.some((kind) => error instanceof kind)) return;
    throw new Error(`threw ${(error as Error)?.constructor?.name ?? typeof error}: ${(error as Error)?.message ?? String(error)}`, {
      cause: error,
    });
  }
}

describe("request schemas: no input makes parsing throw anything but the typed errors", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`${name}: parse throws only ZodError, parseOrThrow only InvalidArgumentError, safeParse never`, () => {
      fc.assert(
        fc.property(fc.oneof(anything, json), (value) => {
          throwsOnly(() => schema.parse(value), [z.ZodError]);
          throwsOnly(() => parseOrThrow(schema, value), [InvalidArgumentError]);
          schema.safeParse(value);
        }),
        RUNS,
      );
    });
  }

  const valids = {
    createInteractionSchema: interactionRequest,
    createEnvironmentSchema: environmentRequest,
    createCredentialSchema: credentialRequest,
    updateCredentialSchema: credentialUpdate,
  } as const;
  for (const [name, valid] of Object.entries(valids)) {
    it(`${name}: a well-formed request with one field replaced by anything still fails only with InvalidArgumentError`, () => {
      const schema = SCHEMAS[name as keyof typeof SCHEMAS];
      fc.assert(
        fc.property(mutated(valid as fc.Arbitrary<unknown>), (value) =>
          throwsOnly(() => parseOrThrow(schema, value), [InvalidArgumentError]),
        ),
        RUNS,
      );
    });
  }
});

describe("request schemas: well-formed requests parse, keeping what they said", () => {
  it("createInteractionSchema", () => {
    fc.assert(
      fc.property(interactionRequest, (request) => {
        const parsed = parseOrThrow(createInteractionSchema, request);
        assert.deepEqual(parsed, request);
      }),
      RUNS,
    );
  });

  it("createEnvironmentSchema", () => {
    fc.assert(
      fc.property(environmentRequest, (request) => assert.deepEqual(parseOrThrow(createEnvironmentSchema, request), request)),
      RUNS,
    );
  });

  it("createCredentialSchema", () => {
    fc.assert(
      fc.property(credentialRequest, (request) => assert.deepEqual(parseOrThrow(createCredentialSchema, request), request)),
      RUNS,
    );
  });

  it("updateCredentialSchema", () => {
    fc.assert(
      fc.property(credentialUpdate, (request) => assert.deepEqual(parseOrThrow(updateCredentialSchema, request), request)),
      RUNS,
    );
  });
});

describe("a credential's header_name and the egress proxy agree", () => {
  const anyHeaderName = fc.oneof(
    fc.string(),
    fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}$/),
    fc.constantFrom("Host", "content-length", "Transfer-Encoding", "Connection", "TE", "Expect", "Proxy-Authorization", "__proto__"),
  );
  it("the API accepts exactly the names the proxy may inject, and refuses the others with InvalidArgumentError", () => {
    fc.assert(
      fc.property(anyHeaderName, (name) => {
        const request = { type: "bearer_token", id: "c", token: "t", header_name: name };
        const proxyAccepts = isInjectableHeaderName(name);
        const policy = { mode: "allowlist", entries: [{ domain: "a.example", headers: { [name]: "v" } }] };
        assert.equal(egressPolicySchema.safeParse(policy).success, proxyAccepts, "the proxy's own policy schema agrees");
        if (proxyAccepts) {
          assert.equal(parseOrThrow(createCredentialSchema, request).header_name, name);
          assert.equal(parseOrThrow(updateCredentialSchema, { header_name: name }).header_name, name);
        } else {
          throwsOnly(() => parseOrThrow(createCredentialSchema, request), [InvalidArgumentError]);
          throwsOnly(() => parseOrThrow(updateCredentialSchema, { header_name: name }), [InvalidArgumentError]);
        }
      }),
      RUNS,
    );
  });
});

describe('request schemas: a "__proto__" key is kept as sent, and its value checked like any other', () => {
  it("in labels, environment variables and injected headers", () => {
    const labels = parseOrThrow(createInteractionSchema, JSON.parse('{"agent": "a", "labels": {"team": "y", "__proto__": "x"}}')).labels;
    assert.deepStrictEqual(labels, JSON.parse('{"team": "y", "__proto__": "x"}'));
    assert.deepEqual(Object.keys(labels ?? {}), ["team", "__proto__"]);
    const environment = parseOrThrow(
      createInteractionSchema,
      JSON.parse('{"agent": "a", "environment": {"type": "remote", "env": {"__proto__": "x"}}}'),
    ).environment as { env?: object };
    assert.ok(environment.env && Object.hasOwn(environment.env, "__proto__"));
    assert.equal(Object.getPrototypeOf(environment.env), Object.prototype);
    const network = parseOrThrow(
      createInteractionSchema,
      JSON.parse(
        '{"agent": "a", "environment": {"type": "remote", "network": {"allowlist": [{"domain": "a.com", "transform": {"__proto__": "x"}}]}}}',
      ),
    ).environment as { network: { allowlist: Array<{ transform: object }> } };
    assert.ok(Object.hasOwn(network.network.allowlist[0]!.transform, "__proto__"));
    assert.throws(
      () => parseOrThrow(createInteractionSchema, JSON.parse('{"agent": "a", "labels": {"__proto__": 5}}')),
      (error: unknown) => error instanceof InvalidArgumentError && /labels\.__proto__/.test(error.message),
    );
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });
});

describe("the checks on a parsed request refuse only with InvalidArgumentError", () => {
  const credentials = new CredentialStore(openMemoryDatabase());

  it("the input's text, the agent's reading of it, and the environment's sources, variables and network", () => {
    fc.assert(
      fc.property(fc.oneof(interactionRequest, mutated(interactionRequest)), (value) => {
        const parsed = createInteractionSchema.safeParse(value);
        if (!parsed.success) return;
        const request: CreateInteractionRequest = parsed.data;
        throwsOnly(() => planFromInput(readInput(request.input).text), [InvalidArgumentError]);
        const environment = request.environment;
        if (typeof environment !== "object") return;
        throwsOnly(() => prepareSources(environment.sources, 1024), [InvalidArgumentError]);
        throwsOnly(() => prepareEnvVars(environment.env), [InvalidArgumentError]);
        throwsOnly(() => checkNetwork(environment.network, "owner", credentials), [InvalidArgumentError]);
      }),
      RUNS,
    );
  });
});
