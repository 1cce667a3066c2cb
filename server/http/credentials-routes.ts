// The /{v}/credentials resource (ai.credentials in the SDK): create, list, get, update, delete.

import { Router } from "express";
import { createCredentialSchema, updateCredentialSchema } from "../credentials/credential-schemas.js";
import { renderCredential, type CredentialService } from "../credentials/credential-service.js";
import type { ListCredentialsResponseBody } from "../wire/openapi-types.js";
import { mountResourceRoutes } from "./resource-routes.js";
import { parseOrThrow } from "./zod-errors.js";

export function credentialsRouter(service: CredentialService, options: { pageBytes: number }): Router {
  const router = Router();
  mountResourceRoutes(router, {
    collection: "credentials",
    render: renderCredential,
    create: (owner, body) => service.create(owner, parseOrThrow(createCredentialSchema, body)),
    list: (owner, query) => {
      const page = service.list(owner, query.page_size, query.page_token, options.pageBytes);
      return {
        credentials: page.credentials.map(renderCredential),
        next_page_token: page.nextPageToken,
      } satisfies ListCredentialsResponseBody;
    },
    get: (owner, id) => service.get(owner, id),
    update: (owner, id, body, updateMask) => service.update(owner, id, parseOrThrow(updateCredentialSchema, body), updateMask),
    delete: (owner, id) => service.delete(owner, id),
  });
  return router;
}
