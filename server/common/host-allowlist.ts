// The host lists of settings like EMULATOR_MCP_HOSTS and EMULATOR_WEBHOOK_HOSTS: an entry "host" allows
// that host on any port, "host:port" ("[v6]:port") that port only, "*" any host. Names compare
// case-insensitively; a URL without a port has its scheme's.

export function hostAllowed(url: URL, allowed: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port === "" ? (url.protocol === "https:" ? "443" : "80") : url.port;
  return allowed.some((entry) => {
    const lower = entry.trim().toLowerCase();
    if (lower === "*") return true;
    const [, entryHost, entryPort] = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(lower) ?? [];
    return entryHost === host && (entryPort === undefined || entryPort === port);
  });
}
