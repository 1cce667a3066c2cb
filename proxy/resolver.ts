// Name resolution, behind an interface so tests can answer with any address (including the ones the
// guard must refuse) without touching DNS, and can count lookups (DNS rebinding tests).

import dns from "node:dns";

export interface Resolver {
  /** All addresses of `host` (a name, never a literal), in the order they should be tried. */
  lookup(host: string): Promise<string[]>;
}

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), as every other program on the host sees it. */
export const systemResolver: Resolver = {
  async lookup(host) {
    const answers = await dns.promises.lookup(host, { all: true, verbatim: true });
    return answers.map((answer) => answer.address);
  },
};
