import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import tls from "node:tls";
import { openCertificateAuthority, type CertificateAuthority } from "../../proxy/certificate-authority.js";

/** A TLS handshake on loopback: the server presents `context`, the client trusts only `caPem`. */
async function handshake(context: tls.SecureContext, caPem: string, hostname: string): Promise<tls.PeerCertificate> {
  const server = tls.createServer({ SNICallback: (_name, callback) => callback(null, context) }, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  try {
    return await new Promise<tls.PeerCertificate>((resolve, reject) => {
      const client = tls.connect({
        host: "127.0.0.1",
        port,
        servername: net.isIP(hostname) ? "ip.invalid" : hostname,
        ca: [caPem],
        checkServerIdentity: (_name, certificate) => tls.checkServerIdentity(hostname, certificate),
      });
      client.once("secureConnect", () => {
        resolve(client.getPeerCertificate());
        client.destroy();
      });
      client.once("error", reject);
    });
  } finally {
    server.close();
  }
}

describe("the emulator's certificate authority", () => {
  let dataDir: string;
  let directory: string;
  let ca: CertificateAuthority;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-ca-"));
    directory = path.join(dataDir, "nested", "egress-ca");
    ca = await openCertificateAuthority(directory);
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it("keeps the certificate and a private key readable by the owner only", async () => {
    assert.equal(await readFile(path.join(directory, "ca.pem"), "utf8"), ca.caCertificatePem);
    assert.equal((await stat(path.join(directory, "ca-key.pem"))).mode & 0o777, 0o600);
    assert.equal((await stat(directory)).mode & 0o777, 0o700);
    assert.doesNotMatch(ca.caCertificatePem, /PRIVATE KEY/);
  });

  it("is a CA certificate", () => {
    const certificate = new X509Certificate(ca.caCertificatePem);
    assert.equal(certificate.ca, true);
  });

  it("reuses the same CA on the next start", async () => {
    const again = await openCertificateAuthority(directory);
    assert.equal(again.caCertificatePem, ca.caCertificatePem);
  });

  it("creates one CA when two processes start together", async () => {
    const fresh = path.join(dataDir, "race");
    const [first, second] = await Promise.all([openCertificateAuthority(fresh), openCertificateAuthority(fresh)]);
    assert.equal(first.caCertificatePem, second.caCertificatePem);
    assert.equal(await readFile(path.join(fresh, "ca.pem"), "utf8"), first.caCertificatePem);
  });

  it("refuses a folder whose key is not the certificate's", async () => {
    const other = path.join(dataDir, "mismatch");
    await openCertificateAuthority(other);
    const third = path.join(dataDir, "third");
    await openCertificateAuthority(third);
    await writeFile(path.join(other, "ca-key.pem"), await readFile(path.join(third, "ca-key.pem")));
    await assert.rejects(openCertificateAuthority(other), /not the key/);
  });

  it("refuses a folder whose certificate cannot be read, saying how to start afresh", async () => {
    const broken = path.join(dataDir, "broken");
    await openCertificateAuthority(broken);
    await writeFile(path.join(broken, "ca.pem"), "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n");
    await assert.rejects(openCertificateAuthority(broken), /ca\.pem or ca-key\.pem that cannot be read .*remove the folder/);
  });

  it("mints a leaf the moment it opens, before its background key pair is ready", async () => {
    const early = await openCertificateAuthority(path.join(dataDir, "early"));
    const leaf = early.leafFor("early.test");
    const certificate = new X509Certificate(leaf.certificatePem);
    assert.ok(certificate.checkIssued(new X509Certificate(early.caCertificatePem)));
    assert.ok(certificate.checkPrivateKey(createPrivateKey(leaf.keyPem)));
    // Every later leaf shares that one key pair (the background one, once ready, does not replace it).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(early.leafFor("later.test").keyPem, leaf.keyPem);
  });

  it("refuses a folder holding only one of the two files", async () => {
    const half = path.join(dataDir, "half");
    await openCertificateAuthority(half);
    await rm(path.join(half, "ca-key.pem"));
    await assert.rejects(openCertificateAuthority(half), /only one of/);
  });

  const hosts = ["api.example.com", "secure.example", "93.184.216.34", "2606:4700:4700::1111", `${"long-label-".repeat(6)}x.example.com`];
  for (const host of hosts) {
    it(`mints a leaf for ${host} that a client trusting the CA accepts`, async () => {
      const peer = await handshake(ca.secureContextFor(host), ca.caCertificatePem, host);
      assert.match(peer.subjectaltname ?? "", net.isIP(host) ? /IP Address:/ : new RegExp(`DNS:${host}`));
    });
  }

  it("mints a leaf that a client does not accept for another host", async () => {
    await assert.rejects(handshake(ca.secureContextFor("one.example"), ca.caCertificatePem, "two.example"), /altnames|Hostname/);
  });

  it("caches leaves: the second request for a host costs nothing", (t) => {
    const host = "timing.example";
    let start = performance.now();
    const first = ca.leafFor(host);
    const mintMs = performance.now() - start;
    start = performance.now();
    const second = ca.leafFor(host);
    const cachedMs = performance.now() - start;
    t.diagnostic(`leaf minting: first ${mintMs.toFixed(2)} ms, cached ${cachedMs.toFixed(3)} ms`);
    assert.equal(second.certificatePem, first.certificatePem);
    assert.ok(cachedMs < mintMs);
  });
});
