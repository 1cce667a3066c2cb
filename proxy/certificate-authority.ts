// The emulator's own CA, for TLS interception of domains whose requests get injected headers.
//
// The CA is generated once and kept in a folder (ca.pem, ca-key.pem with mode 0600) so sandboxes
// created before a restart keep trusting it. Its private key stays on the host side: only ca.pem is
// installed in sandboxes. Per-host leaf certificates are minted on first use and cached in memory.
//
// Speed: node-forge builds the certificates, but its pure-JS RSA is slow (~25 ms per signature,
// seconds for a key pair), so key pairs come from Node's native crypto and the signature over the
// to-be-signed bytes is made natively too (~1 ms). All leaves share one key pair, generated in the
// background as the CA opens.
//
// Start-up: opening the CA is on the way of every `npm start`, so it does only native work (read the
// two files, check that the key is the certificate's). node-forge (42 files) is loaded, and the CA's
// certificate parsed with it, only when the first leaf is minted.

import crypto from "node:crypto";
import { promises as fs } from "node:fs";
import net from "node:net";
import path from "node:path";
import tls from "node:tls";
import { createRequire } from "node:module";
import type forgeModule from "node-forge";
import { ensurePrivateFolder, PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from "./private-files.js";

export const CA_CERTIFICATE_FILE = "ca.pem";
export const CA_KEY_FILE = "ca-key.pem";

const CA_SUBJECT = [
  { name: "commonName", value: "Interactions Sandbox Emulator Egress CA" },
  { name: "organizationName", value: "interactions-sandbox-emulator (local)" },
];
const CA_VALIDITY_YEARS = 10;
// Browsers cap leaf lifetimes at 398 days; staying under keeps strict clients content.
const LEAF_VALIDITY_DAYS = 397;
const LEAF_CACHE_SIZE = 1000;

export interface CertificateAuthority {
  readonly caCertificatePem: string;
  /** A TLS context presenting a certificate for `host` (a name, or a canonical IP address). */
  secureContextFor(host: string): tls.SecureContext;
  /** The same certificate as PEM, with its key (tests and diagnostics). */
  leafFor(host: string): { certificatePem: string; keyPem: string };
}

type KeyPairPem = { publicKeyPem: string; privateKeyPem: string };

const require = createRequire(import.meta.url);
let forgeLoaded: typeof forgeModule | undefined;
/** node-forge, loaded on first use (see the top of this file). */
function forge(): typeof forgeModule {
  forgeLoaded ??= require("node-forge") as typeof forgeModule;
  return forgeLoaded;
}

const KEY_PAIR_OPTIONS = {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
} as const;

function generateKeyPair(): Promise<KeyPairPem> {
  return new Promise((resolve, reject) => {
    crypto.generateKeyPair("rsa", KEY_PAIR_OPTIONS, (error, publicKeyPem, privateKeyPem) =>
      error ? reject(error) : resolve({ publicKeyPem, privateKeyPem }),
    );
  });
}

function generateKeyPairNow(): KeyPairPem {
  const { publicKey, privateKey } = crypto.generateKeyPairSync("rsa", KEY_PAIR_OPTIONS);
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

function randomSerial(): string {
  const bytes = crypto.randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // positive INTEGER
  return bytes.toString("hex");
}

/** Signs natively with the issuer's key; equivalent to forge's cert.sign(key, sha256). */
function signCertificate(certificate: forgeModule.pki.Certificate, issuerKeyPem: string): void {
  const oid = forge().pki.oids.sha256WithRSAEncryption;
  if (oid === undefined) throw new Error("node-forge lacks the sha256WithRSAEncryption OID");
  certificate.signatureOid = oid;
  certificate.siginfo.algorithmOid = oid;
  // Both exist in node-forge (x509.js) but not in its typings: getTBSCertificate builds the
  // to-be-signed structure, and `tbsCertificate` is what certificateToPem serializes.
  const pki = forge().pki as typeof forgeModule.pki & {
    getTBSCertificate(certificate: forgeModule.pki.Certificate): forgeModule.asn1.Asn1;
  };
  const tbs = pki.getTBSCertificate(certificate);
  (certificate as forgeModule.pki.Certificate & { tbsCertificate: forgeModule.asn1.Asn1 }).tbsCertificate = tbs;
  const der = Buffer.from(forge().asn1.toDer(tbs).getBytes(), "binary");
  certificate.signature = crypto.sign("sha256", der, issuerKeyPem).toString("binary");
}

function createCaCertificate(keys: KeyPairPem): string {
  const certificate = forge().pki.createCertificate();
  certificate.publicKey = forge().pki.publicKeyFromPem(keys.publicKeyPem);
  certificate.serialNumber = randomSerial();
  const now = new Date();
  certificate.validity.notBefore = new Date(now.getTime() - 24 * 3600 * 1000);
  certificate.validity.notAfter = new Date(now.getTime() + CA_VALIDITY_YEARS * 365 * 24 * 3600 * 1000);
  certificate.setSubject(CA_SUBJECT);
  certificate.setIssuer(CA_SUBJECT);
  certificate.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  signCertificate(certificate, keys.privateKeyPem);
  return forge().pki.certificateToPem(certificate);
}

/**
 * Writes the CA into a fresh sibling folder, then renames it into place: a rename onto an existing
 * non-empty folder fails, so two processes starting together (the server and the proxy service) cannot
 * end up with one's certificate and the other's key.
 */
async function createCaFolder(directory: string): Promise<void> {
  const parent = path.dirname(directory);
  // The data folder, when this is the first to make it: owner-only (private-files.ts).
  ensurePrivateFolder(parent);
  const staging = await fs.mkdtemp(path.join(parent, `.${path.basename(directory)}-`));
  try {
    const keys = await generateKeyPair();
    await fs.writeFile(path.join(staging, CA_KEY_FILE), keys.privateKeyPem, { mode: PRIVATE_FILE_MODE });
    await fs.chmod(path.join(staging, CA_KEY_FILE), PRIVATE_FILE_MODE);
    await fs.writeFile(path.join(staging, CA_CERTIFICATE_FILE), createCaCertificate(keys), { mode: 0o644 });
    await fs.chmod(staging, PRIVATE_FOLDER_MODE);
    await fs.rename(staging, directory);
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
  }
}

async function readIfExists(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

export class CertificateAuthorityError extends Error {
  override name = "CertificateAuthorityError";
}

/** Loads the CA from `directory`, creating it the first time. */
export async function openCertificateAuthority(directory: string): Promise<CertificateAuthority> {
  let certificatePem = await readIfExists(path.join(directory, CA_CERTIFICATE_FILE));
  let keyPem = await readIfExists(path.join(directory, CA_KEY_FILE));
  if (certificatePem === null && keyPem === null) {
    await createCaFolder(directory);
    certificatePem = await readIfExists(path.join(directory, CA_CERTIFICATE_FILE));
    keyPem = await readIfExists(path.join(directory, CA_KEY_FILE));
  }
  if (certificatePem === null || keyPem === null) {
    throw new CertificateAuthorityError(
      `${directory} holds only one of ${CA_CERTIFICATE_FILE} and ${CA_KEY_FILE}; remove the folder to create a new CA (sandboxes will need the new ca.pem)`,
    );
  }
  let matches: boolean;
  try {
    matches = new crypto.X509Certificate(certificatePem).checkPrivateKey(crypto.createPrivateKey(keyPem));
  } catch (error) {
    throw new CertificateAuthorityError(
      `${directory} holds a ${CA_CERTIFICATE_FILE} or ${CA_KEY_FILE} that cannot be read (${(error as Error).message}); remove the folder to create a new CA (sandboxes will need the new ca.pem)`,
    );
  }
  if (!matches) throw new CertificateAuthorityError(`${CA_KEY_FILE} in ${directory} is not the key of ${CA_CERTIFICATE_FILE}`);
  return new ForgeCertificateAuthority(certificatePem, keyPem);
}

/** What minting a leaf needs, made on the first one: forge's view of the CA and the leaves' key pair. */
interface Minting {
  caCertificate: forgeModule.pki.Certificate;
  caKeyIdentifier: string;
  leafKeys: KeyPairPem;
  leafPublicKey: forgeModule.pki.PublicKey;
}

class ForgeCertificateAuthority implements CertificateAuthority {
  private readonly leaves = new Map<string, { certificatePem: string; context: tls.SecureContext }>();
  private minting: Minting | undefined;
  /** The leaves' key pair, generated off the main thread from the moment the CA opens. */
  private leafKeys: KeyPairPem | undefined;

  constructor(
    readonly caCertificatePem: string,
    private readonly caKeyPem: string,
  ) {
    generateKeyPair().then(
      (keys) => {
        this.leafKeys ??= keys;
      },
      // The first leaf then makes its own, synchronously.
      () => undefined,
    );
  }

  secureContextFor(host: string): tls.SecureContext {
    return this.leaf(host).context;
  }

  leafFor(host: string): { certificatePem: string; keyPem: string } {
    const { certificatePem } = this.leaf(host);
    return { certificatePem, keyPem: this.prepared().leafKeys.privateKeyPem };
  }

  private leaf(host: string): { certificatePem: string; context: tls.SecureContext } {
    const key = host.toLowerCase();
    const cached = this.leaves.get(key);
    if (cached) {
      // Least recently used goes first: re-insert on every hit.
      this.leaves.delete(key);
      this.leaves.set(key, cached);
      return cached;
    }
    const certificatePem = this.mint(key);
    const context = tls.createSecureContext({ key: this.prepared().leafKeys.privateKeyPem, cert: certificatePem });
    const entry = { certificatePem, context };
    this.leaves.set(key, entry);
    if (this.leaves.size > LEAF_CACHE_SIZE) {
      const oldest = this.leaves.keys().next().value;
      if (oldest !== undefined) this.leaves.delete(oldest);
    }
    return entry;
  }

  private prepared(): Minting {
    if (this.minting) return this.minting;
    // A TLS connection in the first few hundred milliseconds, before the background key pair is
    // ready: generated here instead (no sandbox is usually up that soon).
    const leafKeys = this.leafKeys ?? generateKeyPairNow();
    this.leafKeys = leafKeys;
    const caCertificate = forge().pki.certificateFromPem(this.caCertificatePem);
    const minting = {
      caCertificate,
      caKeyIdentifier: caCertificate.generateSubjectKeyIdentifier().getBytes(),
      leafKeys,
      leafPublicKey: forge().pki.publicKeyFromPem(leafKeys.publicKeyPem),
    };
    this.minting = minting;
    return minting;
  }

  private mint(host: string): string {
    const { caCertificate, caKeyIdentifier, leafPublicKey } = this.prepared();
    const certificate = forge().pki.createCertificate();
    certificate.publicKey = leafPublicKey;
    certificate.serialNumber = randomSerial();
    const now = Date.now();
    certificate.validity.notBefore = new Date(now - 24 * 3600 * 1000);
    certificate.validity.notAfter = new Date(now + LEAF_VALIDITY_DAYS * 24 * 3600 * 1000);
    // A commonName is limited to 64 characters; the SAN is what clients check anyway.
    certificate.setSubject(host.length <= 64 ? [{ name: "commonName", value: host }] : []);
    certificate.setIssuer(caCertificate.subject.attributes);
    const isAddress = net.isIP(host) !== 0;
    certificate.setExtensions([
      { name: "basicConstraints", cA: false, critical: true },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      // Without a subject the SAN must be critical (RFC 5280 4.2.1.6).
      { name: "subjectAltName", critical: host.length > 64, altNames: [isAddress ? { type: 7, ip: host } : { type: 2, value: host }] },
      { name: "subjectKeyIdentifier" },
      { name: "authorityKeyIdentifier", keyIdentifier: caKeyIdentifier },
    ]);
    signCertificate(certificate, this.caKeyPem);
    return forge().pki.certificateToPem(certificate);
  }
}
