// The HTTP API. Every route under /{version}/ (v1, v1beta, v1alpha, …: the SDK defaults to v1, the
// service's REST examples use v1beta) needs an API key; /health does not. Every route, /health included,
// answers only requests addressed to a Host it knows (allowed-hosts.ts: DNS rebinding).

import express, { type Express } from "express";
import type { Config } from "../common/config.js";
import type { CredentialService } from "../credentials/credential-service.js";
import type { AgentService } from "../agents/agent-service.js";
import type { EnvironmentService } from "../environments/environment-service.js";
import type { FileService } from "../files/file-service.js";
import type { UploadService } from "../files/upload-service.js";
import type { InteractionService } from "../interactions/interaction-service.js";
import type { TriggerService } from "../triggers/trigger-service.js";
import type { TestClocks } from "../common/test-clocks.js";
import { allowedHostsFrom, requireAllowedHost } from "./allowed-hosts.js";
import { requireApiKey } from "./auth.js";
import { stripBasePath, VERSION_SEGMENT } from "./base-path.js";
import { errorHandler, notFoundHandler } from "./error-handler.js";
import { servedPaths } from "./served-paths.js";
import { healthRouter, type HealthSources } from "./health-routes.js";
import { schemaRouter } from "./schema-routes.js";
import { refuseDeepJson } from "./json-depth.js";
import { declaredFieldsOnly, noFieldsDeclared } from "./declared-fields-only.js";
import { documentedRequests } from "./documented-requests.js";
import { credentialsRouter } from "./credentials-routes.js";
import { agentsRouter } from "./agents-routes.js";
import { emulatorRouter, type EmulatorRouteSources } from "./emulator-routes.js";
import { environmentsRouter } from "./environments-routes.js";
import { filesRouter } from "./files-routes.js";
import { uploadRouter } from "./upload-routes.js";
import { interactionsRouter } from "./interactions-routes.js";
import { interactionListRouter } from "./interaction-list-routes.js";
import { uiRouter } from "./ui-routes.js";
import { triggersRouter } from "./triggers-routes.js";
import { clockRouter } from "./clock-routes.js";
import { stateRouter } from "./state-routes.js";
import type { StateService } from "../snapshots/state-service.js";
import type { FaultPlan } from "../faults/fault-plan.js";
import { faultsRouter } from "./faults-routes.js";
import type { WebhookService } from "../webhooks/webhook-service.js";
import type { WebhookStore } from "../webhooks/webhook-store.js";
import { webhookDeliveriesRouter, webhooksRouter } from "./webhooks-routes.js";
import type { CoverageService } from "../coverage/coverage-service.js";
import { coverageRouter } from "./coverage-routes.js";
import { contractCheck } from "./contract-check.js";
import { parseQuery, refuseConflictingAliases } from "./paging-query.js";

export interface AppDependencies {
  config: Pick<
    Config,
    "EMULATOR_API_KEYS" | "EMULATOR_MAX_BODY_BYTES" | "EMULATOR_ALLOWED_HOSTS" | "HOST" | "EMULATOR_LOOSE" | "EMULATOR_LIST_PAGE_BYTES"
  > &
    Partial<Pick<Config, "EMULATOR_CONTRACT_CHECK">>;
  interactions: InteractionService;
  credentials: CredentialService;
  agents: AgentService;
  environments: EnvironmentService;
  files: FileService;
  uploads: UploadService;
  triggers: TriggerService;
  /** Each key's test clock, behind /emulator/clock (docs/clock.md). */
  clocks: TestClocks;
  webhooks: { service: WebhookService; store: WebhookStore };
  /** State snapshots behind /emulator/state (docs/state-snapshots.md). */
  state: StateService;
  /** The fault rules in force, behind /emulator/faults (docs/faults.md). */
  faults: FaultPlan;
  debug: EmulatorRouteSources;
  coverage: CoverageService;
  health: HealthSources;
}

export function createApp(deps: AppDependencies): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // pageSize/pageToken (the REST examples) are read as page_size/page_token on every route (paging-query.ts).
  app.set("query parser", parseQuery);
  app.use(requireAllowedHost(allowedHostsFrom(deps.config.EMULATOR_ALLOWED_HOSTS, deps.config.HOST)));
  app.use(stripBasePath);
  app.use(refuseConflictingAliases);
  // EMULATOR_CONTRACT_CHECK: each answer of the API checked against the service's OpenAPI document (contract-check.ts).
  const contract = deps.config.EMULATOR_CONTRACT_CHECK ? contractCheck() : null;
  if (contract) app.use(contract.middleware);
  // Upload chunks are raw bytes (the SDK labels them application/json): served before the JSON parser.
  const upload = express.Router({ mergeParams: true });
  upload.use(requireApiKey(deps.config.EMULATOR_API_KEYS));
  const uploads = uploadRouter(deps.uploads);
  upload.use(uploads);
  app.use("/upload/:version", (req, res, next) => {
    if (!VERSION_SEGMENT.test(req.params.version ?? "")) return next("route");
    upload(req, res, next);
  });
  // A state file is the body's raw bytes, streamed: served before the JSON parser (state-routes.ts).
  const state = stateRouter(deps.state);
  app.use("/emulator/state", requireApiKey(deps.config.EMULATOR_API_KEYS), state);
  // The SDK sends content-type: application/json even on GET; parse JSON whatever the charset says.
  app.use(express.json({ limit: deps.config.EMULATOR_MAX_BODY_BYTES, type: () => true, strict: false }));
  app.use(refuseDeepJson);
  const health = contract ? { ...deps.health, contract: () => contract.counts() } : deps.health;
  const open = [healthRouter(health), schemaRouter(), uiRouter()];
  // The health check, the hooks schema, and the dashboard's page and modules: no API key (the page asks the API with the user's key).
  for (const router of open) app.use(router);

  const api = express.Router({ mergeParams: true });
  api.use(requireApiKey(deps.config.EMULATOR_API_KEYS));
  // Each body the SDK declares is checked for unknown fields before its route parses it (declared-fields-only.ts).
  const fieldsPolicy = { loose: deps.config.EMULATOR_LOOSE };
  api.post("/interactions", declaredFieldsOnly("interactions.create", fieldsPolicy));
  api.post("/environments", declaredFieldsOnly("environments.create", fieldsPolicy));
  api.post("/credentials", declaredFieldsOnly("credentials.create", fieldsPolicy));
  api.patch("/credentials/:id", declaredFieldsOnly("credentials.update", fieldsPolicy));
  // An agent's definition is strict whatever EMULATOR_LOOSE says (docs/agents.md).
  api.post("/agents", declaredFieldsOnly("agents.create", { loose: false }));
  api.post("/triggers", declaredFieldsOnly("triggers.create", fieldsPolicy));
  api.patch("/triggers/:id", declaredFieldsOnly("triggers.update", fieldsPolicy));
  // PingWebhook and RunTrigger declare no fields at all.
  const noFields = noFieldsDeclared(fieldsPolicy);
  api.post("/triggers/:id/executions", noFields);
  api.post("/webhooks/:target", (req, res, next) => (req.params.target?.endsWith(":ping") ? noFields(req, res, next) : next()));
  // Then each body is held to the service's OpenAPI document (documented-requests.ts).
  api.use(documentedRequests(fieldsPolicy));
  api.use(interactionsRouter(deps.interactions));
  const pageBytes = deps.config.EMULATOR_LIST_PAGE_BYTES;
  api.use(credentialsRouter(deps.credentials, { pageBytes }));
  api.use(agentsRouter(deps.agents, { pageBytes }));
  api.use(environmentsRouter(deps.environments, { pageBytes }));
  api.use(filesRouter(deps.files));
  api.use(triggersRouter(deps.triggers, { pageBytes }));
  api.use(webhooksRouter(deps.webhooks.service));
  app.use("/:version", (req, res, next) => {
    if (!VERSION_SEGMENT.test(req.params.version ?? "")) return next("route");
    api(req, res, next);
  });

  const emulator = [
    interactionListRouter(deps.interactions),
    webhookDeliveriesRouter(deps.webhooks.store),
    emulatorRouter(deps.debug),
    coverageRouter(deps.coverage),
    clockRouter(deps.clocks),
    faultsRouter(deps.faults),
  ];
  app.use("/emulator", requireApiKey(deps.config.EMULATOR_API_KEYS), ...emulator);

  app.use(
    notFoundHandler(() =>
      servedPaths([
        { at: "/{version}", routers: [api] },
        { at: "/upload/{version}", routers: [uploads] },
        { at: "/emulator", routers: emulator },
        { at: "/emulator/state", routers: [state] },
        { at: "", routers: open },
      ]),
    ),
  );
  app.use(errorHandler);
  return app;
}
