// Fixtures for the egress proxy's tests. Network etiquette: everything here listens and dials on
// loopback only. "Public" addresses appear only as strings that a ScriptedResolver returns and a
// RecordingDialer records and redirects to a local server; nothing ever connects to them.

import crypto from "node:crypto";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import forge from "node-forge";
import { createSystemDialer, type Dialer } from "../../proxy/dialer.js";
import { encodePreamble, type EgressPreamble } from "../../proxy/preamble.js";
import type { Resolver } from "../../proxy/resolver.js";

// ---------------------------------------------------------------------------------------------
// A test PKI for upstream servers, independent of the proxy's own CA code.

export type TestPki = { caPem: string; issue(hosts: string[]): { keyPem: string; certificatePem: string } };

function nativeKeyPair(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = crypto.generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

export function createTestPki(name: string): TestPki {
  const caKeys = nativeKeyPair();
  const caKey = forge.pki.privateKeyFromPem(caKeys.privateKeyPem);
  const ca = forge.pki.createCertificate();
  ca.publicKey = forge.pki.publicKeyFromPem(caKeys.publicKeyPem);
  ca.serialNumber = "01";
  ca.validity.notBefore = new Date(Date.now() - 3600_000);
  ca.validity.notAfter = new Date(Date.now() + 30 * 24 * 3600_000);
  const subject = [{ name: "commonName", value: `${name} test CA` }];
  ca.setSubject(subject);
  ca.setIssuer(subject);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  ca.sign(caKey, forge.md.sha256.create());
  const leafKeys = nativeKeyPair();
  let serial = 1;
  return {
    caPem: forge.pki.certificateToPem(ca),
    issue(hosts) {
      const leaf = forge.pki.createCertificate();
      leaf.publicKey = forge.pki.publicKeyFromPem(leafKeys.publicKeyPem);
      serial += 1;
      leaf.serialNumber = serial.toString(16).padStart(2, "0");
      leaf.validity.notBefore = new Date(Date.now() - 3600_000);
      leaf.validity.notAfter = new Date(Date.now() + 30 * 24 * 3600_000);
      leaf.setSubject([{ name: "commonName", value: hosts[0] ?? "localhost" }]);
      leaf.setIssuer(subject);
      leaf.setExtensions([
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
        { name: "extKeyUsage", serverAuth: true },
        { name: "subjectAltName", altNames: hosts.map((host) => (net.isIP(host) ? { type: 7, ip: host } : { type: 2, value: host })) },
      ]);
      leaf.sign(caKey, forge.md.sha256.create());
      return { keyPem: leafKeys.privateKeyPem, certificatePem: forge.pki.certificateToPem(leaf) };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Upstream servers that echo what reached them.

export type Echo = { server: string; method: string; url: string; headers: http.IncomingHttpHeaders; body: string };

export type EchoServer = { name: string; port: number; requests: Echo[]; close(): Promise<void> };

/** Listens on `host` (loopback unless a test names an address it made itself) at a free port. */
export async function startEchoServer(
  name: string,
  tlsOptions?: { keyPem: string; certificatePem: string },
  host = "127.0.0.1",
): Promise<EchoServer> {
  const requests: Echo[] = [];
  const handler = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const echo: Echo = {
        server: name,
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(echo);
      const body = JSON.stringify(echo);
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      response.end(body);
    });
  };
  const server = tlsOptions
    ? https.createServer({ key: tlsOptions.keyPem, cert: tlsOptions.certificatePem }, handler)
    : http.createServer(handler);
  const sockets = new Set<net.Socket>();
  server.on("connection", (socket: net.Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    name,
    port: (server.address() as net.AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Injected resolver and dialer.

export class ScriptedResolver implements Resolver {
  readonly lookups: string[] = [];
  constructor(private readonly answer: (host: string, attempt: number) => string[]) {}

  async lookup(host: string): Promise<string[]> {
    this.lookups.push(host);
    const attempt = this.lookups.filter((seen) => seen === host).length;
    const addresses = this.answer(host, attempt);
    if (addresses.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return addresses;
  }
}

/** A resolver for tests that must never reach DNS: every name is unknown. */
export const noDnsResolver = new ScriptedResolver(() => []);

export class RecordingDialer implements Dialer {
  readonly dials: Array<{ address: string; port: number }> = [];
  private readonly system = createSystemDialer({ connectTimeoutMs: 5000 });

  /** `redirects`: "address:port" as dialled → a loopback port where a test server listens. */
  constructor(private readonly redirects: Map<string, number> = new Map()) {}

  redirect(address: string, port: number, localPort: number): void {
    this.redirects.set(`${address}:${port}`, localPort);
  }

  async connect(address: string, port: number): Promise<net.Socket> {
    this.dials.push({ address, port });
    const local = this.redirects.get(`${address}:${port}`);
    if (local !== undefined) return this.system.connect("127.0.0.1", local);
    if (address === "127.0.0.1" || address === "::1") return this.system.connect(address, port);
    // Etiquette: a test never connects anywhere but loopback.
    throw new Error(`RecordingDialer: ${address}:${port} is not redirected to a local server`);
  }

  startTls(socket: net.Socket, options: Parameters<Dialer["startTls"]>[1]): Promise<tls.TLSSocket> {
    return this.system.startTls(socket, options);
  }
}

// ---------------------------------------------------------------------------------------------
// The server's side of a proxy connection, and a sandbox program's requests over it.

export const TEST_SECRET = "test-secret-0123456789abcdef";

export function preambleFor(policy: EgressPreamble["policy"], environmentId = "env_test", secret = TEST_SECRET): EgressPreamble {
  return { secret, environment_id: environmentId, policy };
}

/** Connects to the proxy as the server does: preamble first, then the sandbox's bytes. */
export function openProxyConnection(port: number, preamble: EgressPreamble | string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => {
      socket.write(typeof preamble === "string" ? preamble : encodePreamble(preamble));
      socket.removeListener("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

export type ProxyResponse = { status: number; headers: http.IncomingHttpHeaders; body: string };

function readResponse(request: http.ClientRequest, body?: string): Promise<ProxyResponse> {
  return new Promise((resolve, reject) => {
    request.once("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString() }),
      );
      response.on("error", reject);
    });
    request.once("error", reject);
    request.end(body);
  });
}

/** One request on an open proxy connection (keep-alive: several can follow on the same socket). */
export function requestOn(
  socket: net.Socket,
  request: { url: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<ProxyResponse> {
  const host = /^https?:\/\/([^/?#]*)/i.exec(request.url)?.[1] ?? "";
  const outgoing = http.request({
    createConnection: () => socket,
    method: request.method ?? "GET",
    path: request.url,
    headers: { host, ...request.headers },
  });
  return readResponse(outgoing, request.body);
}

/** An agent that keeps using one proxy connection: several requests on it, as keep-alive clients do. */
export class SingleConnectionAgent extends http.Agent {
  constructor(private readonly socket: net.Socket) {
    super({ keepAlive: true, maxSockets: 1 });
  }

  override createConnection(): net.Socket {
    return this.socket;
  }
}

export function requestWithAgent(
  agent: http.Agent,
  request: { url: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<ProxyResponse> {
  const host = /^https?:\/\/([^/?#]*)/i.exec(request.url)?.[1] ?? "";
  const outgoing = http.request({ agent, method: request.method ?? "GET", path: request.url, headers: { host, ...request.headers } });
  return readResponse(outgoing, request.body);
}

/** A fresh connection with one absolute-URI request. */
export async function proxyRequest(
  port: number,
  preamble: EgressPreamble,
  request: { url: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<ProxyResponse> {
  const socket = await openProxyConnection(port, preamble);
  try {
    return await requestOn(socket, request);
  } finally {
    socket.destroy();
  }
}

export type ConnectResult = { status: number; headers: http.IncomingHttpHeaders; body: string; socket: net.Socket };

/** CONNECT on a fresh connection; on 200 the socket is the tunnel. */
export async function proxyConnect(port: number, preamble: EgressPreamble, authority: string): Promise<ConnectResult> {
  const socket = await openProxyConnection(port, preamble);
  return new Promise((resolve, reject) => {
    const request = http.request({ createConnection: () => socket, method: "CONNECT", path: authority, headers: { host: authority } });
    request.once("connect", (response, tunnel: net.Socket, head: Buffer) => {
      const status = response.statusCode ?? 0;
      if (head.length > 0) tunnel.unshift(head);
      if (status === 200) {
        resolve({ status, headers: response.headers, body: "", socket: tunnel });
        return;
      }
      // Node hands over the socket whatever the status: the refusal's body follows on it.
      let body = "";
      tunnel.on("data", (chunk: Buffer) => (body += chunk.toString()));
      tunnel.on("error", () => undefined);
      tunnel.once("close", () => resolve({ status, headers: response.headers, body, socket: tunnel }));
    });
    request.once("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString(), socket }),
      );
    });
    request.once("error", reject);
    request.end();
  });
}

export type TunnelTls = { secure: tls.TLSSocket; issuer: string; subjectAltName: string | undefined };

/** TLS over a tunnel, as a sandbox program that trusts `caPems` would do it. */
export function startClientTls(tunnel: net.Socket, servername: string, caPems: string[]): Promise<TunnelTls> {
  return new Promise((resolve, reject) => {
    const secure = tls.connect({
      socket: tunnel,
      ...(net.isIP(servername) ? {} : { servername }),
      ca: caPems,
      ALPNProtocols: ["http/1.1"],
      checkServerIdentity: (_name, certificate) => tls.checkServerIdentity(servername, certificate),
    });
    // As a program closing its connection: the TLS layer and the TCP socket under it.
    secure.once("close", () => tunnel.destroy());
    secure.once("secureConnect", () => {
      const certificate = secure.getPeerCertificate();
      const issuer = certificate.issuer?.CN;
      resolve({ secure, issuer: Array.isArray(issuer) ? issuer.join(",") : (issuer ?? ""), subjectAltName: certificate.subjectaltname });
    });
    secure.once("error", reject);
  });
}

/** An HTTP request over an established tunnel (TLS or not), kept open after. */
export function requestInTunnel(
  secure: net.Socket,
  request: { path: string; host: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<ProxyResponse> {
  const outgoing = http.request({
    createConnection: () => secure,
    method: request.method ?? "GET",
    path: request.path,
    headers: { host: request.host, connection: "keep-alive", ...request.headers },
  });
  return readResponse(outgoing, request.body);
}

/** Resolves when the peer closes the socket (with what it sent first), or rejects after `ms`. */
export function waitForClose(socket: net.Socket, ms = 3000): Promise<{ received: string }> {
  return new Promise((resolve, reject) => {
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString()));
    socket.on("error", () => undefined);
    const timer = setTimeout(() => reject(new Error(`socket still open after ${ms} ms`)), ms);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve({ received });
    });
  });
}
