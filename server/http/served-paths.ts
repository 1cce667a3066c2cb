// What the emulator serves, read from its routers: the "no route" answer names it, and stays true as
// routes are added (a hand-kept list once left out agents, webhooks and triggers).

/** The part of an Express router this reads: its layers, each a route or a router mounted at its root. */
export interface RouterLike {
  stack: Array<{ route?: { path: unknown } | undefined; handle?: unknown }>;
}

/** Routers mounted at one place ("/{version}", "/emulator", "" for the root). */
export interface Mount {
  at: string;
  routers: RouterLike[];
}

/**
 * Each resource a mount serves, once, in the order its routes were declared: "/{version}/interactions",
 * "/upload/{version}/environments/…" (a trailing "/…" when it has routes only below it).
 */
export function servedPaths(mounts: readonly Mount[]): string[] {
  const served = new Map<string, boolean>();
  for (const mount of mounts) {
    for (const routePath of mount.routers.flatMap(routePaths)) {
      const [first = "", ...rest] = routePath.split("/").filter(Boolean);
      const resource = `${mount.at}/${first.replace(/[{(].*$/, "")}`.replace(/\/$/, "") || "/";
      served.set(resource, (served.get(resource) ?? false) || rest.length === 0);
    }
  }
  return [...served].map(([resource, itself]) => (itself ? resource : `${resource}/…`));
}

/** Every route path of a router and of the routers mounted at its root, as declared. */
function routePaths(router: RouterLike): string[] {
  return router.stack.flatMap((layer) => {
    if (layer.route) return [layer.route.path].flat().filter((path): path is string => typeof path === "string");
    const inner = layer.handle as Partial<RouterLike> | undefined;
    return inner && Array.isArray(inner.stack) ? routePaths(inner as RouterLike) : [];
  });
}
