// Access tokens of OAuth2 credentials. An allowlist entry naming an `oauth2` credential carries its
// refresh grant in the policy; before forwarding a request to that domain, the proxy asks here for an
// access token and injects `Authorization: Bearer <token>`. The token endpoint is called by the proxy
// itself (never by the sandbox, which holds none of the grant), through the same route decision as a
// sandbox's request to an open policy: the address guard applies, and EMULATOR_EGRESS_HOST_MAP is the
// only way to a local test server. The call is bounded in time and answer size.
//
// Tokens are cached per grant (its URL, client and secrets: a rotated credential gets a new entry)
// until `expires_in` minus a margin, judged on the environment owner's clock, so a test that moves its
// clock sees the refresh. Concurrent requests for the same grant share one call.

import { createHash } from "node:crypto";
import http from "node:http";
import type net from "node:net";
import type { Dialer } from "./dialer.js";
import { routeDestination, type RouteDependencies } from "./egress-route.js";
import { CompiledPolicy, type OAuth2Grant } from "./policy.js";
import { parseAbsoluteTarget, type AbsoluteTarget } from "./request-target.js";
import { type RouteAgent, singleRequestAgent } from "./upstream-agent.js";

export type OAuth2Settings = {
  /** The whole token call, connection to last byte. */
  timeoutMs: number;
  /** The token endpoint's answer, at most. */
  maxAnswerBytes: number;
};

export const DEFAULT_OAUTH2_SETTINGS: OAuth2Settings = { timeoutMs: 10_000, maxAnswerBytes: 65_536 };

/** A token is refreshed this long before its expiry (or at half its lifetime, if that is shorter). */
const EXPIRY_MARGIN_MS = 60_000;
/** Grants whose tokens are kept; the least recently used goes first. */
const MAX_CACHED_GRANTS = 1000;

export class OAuth2RefreshError extends Error {
  override name = "OAuth2RefreshError";
}

type Cached = { token: string; expiresAt: number };

const OPEN = new CompiledPolicy({ mode: "open" });

export class OAuth2Tokens {
  private readonly cache = new Map<string, Cached>();
  private readonly inFlight = new Map<string, Promise<Cached>>();

  constructor(
    private readonly dependencies: {
      routes: RouteDependencies;
      dialer: Dialer;
      trustedCas: string[] | undefined;
      trackSocket: (socket: net.Socket) => void;
      settings: OAuth2Settings;
    },
  ) {}

  /** An access token valid at `now` (ms on the owner's clock): cached, or fetched with the refresh grant. */
  async accessToken(grant: OAuth2Grant, now: number): Promise<string> {
    const key = grantKey(grant);
    const cached = this.cache.get(key);
    if (cached && now < cached.expiresAt) {
      // Most recently used last, so the oldest is evicted first.
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached.token;
    }
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.fetchToken(grant, now).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return (await pending).token;
  }

  private remember(key: string, entry: Cached): void {
    this.cache.delete(key);
    this.cache.set(key, entry);
    while (this.cache.size > MAX_CACHED_GRANTS) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }

  private async fetchToken(grant: OAuth2Grant, now: number): Promise<Cached> {
    parseTokenUrl(grant.token_url);
    const target = parseAbsoluteTarget(grant.token_url);
    if ("error" in target) throw new OAuth2RefreshError(`token_url: ${target.error}`);
    const routed = await routeDestination(OPEN, target, this.dependencies.routes);
    if (!routed.ok) {
      throw new OAuth2RefreshError(
        `the token endpoint ${target.authority} is refused: ${routed.refusal.reason} (${routed.refusal.detail})`,
      );
    }
    const { dialer, trustedCas, trackSocket, settings } = this.dependencies;
    const agent = singleRequestAgent(routed.route, target.scheme, dialer, trustedCas, trackSocket);
    const form = new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: grant.refresh_token,
      client_id: grant.client_id,
      client_secret: grant.client_secret,
    });
    if (grant.scopes && grant.scopes.length > 0) form.set("scope", grant.scopes.join(" "));
    const body = form.toString();
    try {
      const answer = await postForm(agent, target, body, settings);
      const token = parseTokenAnswer(answer, target.authority);
      const lifetimeMs = token.expiresIn === null ? null : token.expiresIn * 1000;
      const margin = lifetimeMs === null ? 0 : Math.min(EXPIRY_MARGIN_MS, lifetimeMs / 2);
      const entry = { token: token.accessToken, expiresAt: lifetimeMs === null ? now : now + lifetimeMs - margin };
      // Without expires_in, the token serves this request only: how long it lives is unknown.
      if (lifetimeMs !== null) this.remember(grantKey(grant), entry);
      return entry;
    } finally {
      agent.destroy();
    }
  }
}

function grantKey(grant: OAuth2Grant): string {
  return createHash("sha256")
    .update(JSON.stringify([grant.token_url, grant.client_id, grant.client_secret, grant.refresh_token, grant.scopes ?? []]))
    .digest("hex");
}

/** Why a token_url cannot be a token endpoint (not an http(s) URL, user information in it); null when it can. */
export function whyNotTokenUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not a URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return `must be an https:// (or http://) URL, not ${url.protocol}`;
  if (url.username !== "" || url.password !== "") return "may not carry a user name or password";
  const target = parseAbsoluteTarget(text);
  return "error" in target ? target.error : null;
}

function parseTokenUrl(text: string): void {
  const why = whyNotTokenUrl(text);
  if (why !== null) throw new OAuth2RefreshError(`token_url ${why}`);
}

type Answer = { status: number; contentType: string; text: string };

function postForm(agent: RouteAgent, target: AbsoluteTarget, body: string, settings: OAuth2Settings): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, answer?: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        request.destroy();
        reject(error);
      } else if (answer) resolve(answer);
    };
    // The agent dials the checked address and starts TLS itself, so the request is plain http here.
    const request = http.request({
      agent,
      method: "POST",
      host: target.host,
      port: target.port,
      path: target.path,
      headers: {
        host: target.authority,
        "content-type": "application/x-www-form-urlencoded",
        "content-length": Buffer.byteLength(body),
        accept: "application/json",
      },
    });
    const timer = setTimeout(
      () => finish(new OAuth2RefreshError(`the token endpoint ${target.authority} did not answer within ${settings.timeoutMs} ms`)),
      settings.timeoutMs,
    );
    request.once("error", (error) => finish(new OAuth2RefreshError(`the token endpoint ${target.authority} failed: ${error.message}`)));
    request.once("response", (response) => {
      const chunks: Buffer[] = [];
      let length = 0;
      response.on("data", (chunk: Buffer) => {
        length += chunk.length;
        if (length > settings.maxAnswerBytes) {
          finish(new OAuth2RefreshError(`the token endpoint ${target.authority} answered more than ${settings.maxAnswerBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.once("end", () =>
        finish(null, {
          status: response.statusCode ?? 0,
          contentType: String(response.headers["content-type"] ?? ""),
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      response.once("error", (error) => finish(new OAuth2RefreshError(`the token endpoint ${target.authority} failed: ${error.message}`)));
    });
    request.end(body);
  });
}

function parseTokenAnswer(answer: Answer, host: string): { accessToken: string; expiresIn: number | null } {
  if (answer.status < 200 || answer.status > 299) {
    // The answer's `error` code (RFC 6749 §5.2) says why; its description may echo what was sent, so only the code.
    let code = "";
    try {
      const parsed = JSON.parse(answer.text) as { error?: unknown };
      if (typeof parsed.error === "string" && /^[\x20-\x7e]{1,100}$/.test(parsed.error)) code = ` (${parsed.error})`;
    } catch {
      // not JSON: the status says enough
    }
    throw new OAuth2RefreshError(`the token endpoint ${host} answered ${answer.status}${code}`);
  }
  let parsed: { access_token?: unknown; token_type?: unknown; expires_in?: unknown };
  try {
    parsed = JSON.parse(answer.text) as typeof parsed;
  } catch {
    throw new OAuth2RefreshError(`the token endpoint ${host} answered ${answer.status} without a JSON body`);
  }
  const token = parsed.access_token;
  if (typeof token !== "string" || token === "" || !/^[\x21-\x7e]+$/.test(token) || token.length > 16_384) {
    throw new OAuth2RefreshError(`the token endpoint ${host} answered without a usable access_token`);
  }
  if (parsed.token_type !== undefined && String(parsed.token_type).toLowerCase() !== "bearer") {
    throw new OAuth2RefreshError(`the token endpoint ${host} answered token_type ${String(parsed.token_type).slice(0, 40)}, not Bearer`);
  }
  const expiresIn = Number(parsed.expires_in);
  return {
    accessToken: token,
    expiresIn: parsed.expires_in !== undefined && Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : null,
  };
}
