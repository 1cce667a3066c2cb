// The egress proxy's public surface: what the server (and the standalone process) use.

export { startEgressProxy, type EgressProxy, type EgressProxyOptions } from "./egress-proxy.js";
export {
  egressPolicySchema,
  isInjectableHeaderName,
  isInjectableHeaderValue,
  type AllowlistEntry,
  type EgressPolicy,
  type InjectionLocation,
  type OAuth2Grant,
  type Substitution,
} from "./policy.js";
export { whyNotTokenUrl } from "./oauth2-tokens.js";
export { encodePreamble, preambleSchema, type EgressPreamble } from "./preamble.js";
export type { EgressEntry, EgressListener } from "./egress-log.js";
export { PROXY_ERROR_HEADER } from "./responses.js";
export { parseHostMap, type HostMap, type HostMapTarget } from "./host-map.js";
export {
  CA_DIRECTORY_NAME,
  caDirectoryFor,
  defaultDataDirectory,
  egressSettingsFromEnv,
  readCaFile,
  type EgressEnvironmentSettings,
} from "./environment-settings.js";
export { openCertificateAuthority, CA_CERTIFICATE_FILE, CA_KEY_FILE, type CertificateAuthority } from "./certificate-authority.js";
export { systemResolver, type Resolver } from "./resolver.js";
export { createSystemDialer, type Dialer, type UpstreamTlsOptions } from "./dialer.js";
export { secureDataFolder } from "./data-folder.js";
export { ensurePrivateFile, ensurePrivateFolder, tightenToOwner, type PermissionReport } from "./private-files.js";
export { whyNotInjectable } from "./header-rules.js";
export type { EgressFaultEffect, EgressFaultLookup, EgressFaultMark, EgressFaultQuery } from "./egress-fault.js";
