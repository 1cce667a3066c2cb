// How a sandbox is pointed at the egress proxy and made to trust its CA. The proxy listener inside the
// container is the executor's (carried over its channel); nothing else in the sandbox has a route out.

/** Port the executor listens on, on the container's loopback. */
export const SANDBOX_PROXY_PORT = 3128;
export const SANDBOX_PROXY_URL = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;

/** The system trust store Debian's OpenSSL, curl, git and Python read. */
export const SYSTEM_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
/** The emulator's CA alone, for tools that add to their roots (Node's NODE_EXTRA_CA_CERTS). */
export const EMULATOR_CA_PATH = "/usr/local/share/ca-certificates/interactions-emulator.crt";

export const SANDBOX_PROXY_ENV: Readonly<Record<string, string>> = {
  HTTP_PROXY: SANDBOX_PROXY_URL,
  HTTPS_PROXY: SANDBOX_PROXY_URL,
  ALL_PROXY: SANDBOX_PROXY_URL,
  http_proxy: SANDBOX_PROXY_URL,
  https_proxy: SANDBOX_PROXY_URL,
  all_proxy: SANDBOX_PROXY_URL,
  // Empty on purpose: nothing bypasses the proxy (there is no other way out anyway).
  NO_PROXY: "",
  no_proxy: "",
};

/** Set only where the emulator's CA is installed (a runtime without a proxy CA leaves them out). */
export const SANDBOX_CA_ENV: Readonly<Record<string, string>> = {
  SSL_CERT_FILE: SYSTEM_CA_BUNDLE,
  REQUESTS_CA_BUNDLE: SYSTEM_CA_BUNDLE,
  CURL_CA_BUNDLE: SYSTEM_CA_BUNDLE,
  GIT_SSL_CAINFO: SYSTEM_CA_BUNDLE,
  NODE_EXTRA_CA_CERTS: EMULATOR_CA_PATH,
};
