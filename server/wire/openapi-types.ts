// The service's wire types: every schema a request or response body of the Interactions API's operations
// reaches, and each operation's request and response body. Generated from schemas/interactions.openapi.json
// (with schemas/interactions.openapi.defects.json applied) by `npm run schemas` (tools/openapi-types.ts):
// do not edit; test/unit/openapi-types-generated.test.ts fails while this file is stale.


/**
 * An agent definition for the CreateAgent API.
 * This message is the target for annotation-parser-based JSON parsing.
 * New format:
 *   {
 *     "id": "customer-sentinel",
 *     "base_agent": "",
 *     "system_instruction": "...",
 *     "base_environment": { "type": "remote", "sources": [...] },
 *     "tools": [ {"type": "code_execution"} ]
 *   }
 */
export interface Agent {
  /**
   * Configuration parameters for the agent.
   */
  agent_config?: AntigravityAgentConfig;
  /**
   * The base agent to extend.
   */
  base_agent?: string;
  /**
   * The environment configuration for the agent.
   */
  base_environment?: EnvironmentConfig | string;
  /**
   * Agent description for developers to quickly read and understand.
   */
  description?: string;
  /**
   * The unique identifier for the agent.
   */
  id?: string;
  /**
   * System instruction for the agent.
   */
  system_instruction?: string;
  /**
   * The tools available to the agent.
   */
  tools?: Array<AgentTool>;
}

/**
 * The agent to interact with.
 */
export type AgentOption = string;

/**
 * A tool that the agent can use.
 */
export type AgentTool = CodeExecution | Function | GoogleSearch | McpServer | UrlContext;

/**
 * The configuration for allowed tools.
 */
export interface AllowedTools {
  /**
   * The mode of the tool choice.
   */
  mode?: "auto" | "any" | "none" | "validated";
  /**
   * The names of the allowed tools.
   */
  tools?: Array<string>;
}

/**
 * A single domain allowlist rule with optional header injection.
 */
export interface AllowlistEntry {
  /**
   * Optional. Reference to a server-managed Credential resource by ID.
   */
  credential?: string;
  /**
   * Domain to allow outbound requests to. Supports wildcards (e.g. '*.googleapis.com'). Use '*' to allow all domains.
   */
  domain: string;
  /**
   * Headers to inject on all outbound requests matching this domain. Accepts a single dict or a list of dicts. The egress proxy injects these automatically.
   */
  transform?: Array<Record<string, string>> | Record<string, string>;
}

/**
 * Citation information for model-generated content.
 */
export type Annotation = FileCitation | PlaceCitation | SpeechAnnotation | UrlCitation | WordInfo;

/**
 * Configuration for the Antigravity agent runtime.
 * Provides server-side control over the agent's execution environment
 * and tool configuration.
 */
export interface AntigravityAgentConfig {
  /**
   * Max total tokens for the agent run.
   */
  max_total_tokens?: string;
  /**
   * The model to use for agent reasoning.
   */
  model?: string;
  type: "antigravity";
}

export interface ArgumentsDelta {
  arguments?: string;
  type: "arguments_delta";
}

/**
 * An audio content block.
 */
export interface AudioContent {
  /**
   * The number of audio channels.
   */
  channels?: number;
  /**
   * The audio content.
   */
  data?: string;
  /**
   * The mime type of the audio.
   */
  mime_type?: "audio/wav" | "audio/mp3" | "audio/aiff" | "audio/aac" | "audio/ogg" | "audio/flac" | "audio/mpeg" | "audio/m4a" | "audio/l16" | "audio/opus" | "audio/alaw" | "audio/mulaw" | "audio/webm";
  /**
   * The sample rate of the audio.
   */
  sample_rate?: number;
  type: "audio";
  /**
   * The URI of the audio.
   */
  uri?: string;
}

export interface AudioDelta {
  /**
   * The number of audio channels.
   */
  channels?: number;
  data?: string;
  mime_type?: "audio/wav" | "audio/mp3" | "audio/aiff" | "audio/aac" | "audio/ogg" | "audio/flac" | "audio/mpeg" | "audio/m4a" | "audio/l16" | "audio/opus" | "audio/alaw" | "audio/mulaw" | "audio/webm";
  /**
   * Deprecated. Use sample_rate instead. The value is ignored.
   */
  rate?: number;
  /**
   * The sample rate of the audio.
   */
  sample_rate?: number;
  type: "audio";
  uri?: string;
}

/**
 * Configuration for audio output format.
 */
export interface AudioResponseFormat {
  /**
   * Bit rate in bits per second (bps). Only applicable for compressed formats
   * (MP3, Opus).
   */
  bit_rate?: number;
  /**
   * The delivery mode for the audio output.
   */
  delivery?: "inline" | "uri";
  /**
   * The MIME type of the audio output.
   */
  mime_type?: "audio/mp3" | "audio/ogg_opus" | "audio/l16" | "audio/wav" | "audio/alaw" | "audio/mulaw";
  /**
   * Sample rate in Hz.
   */
  sample_rate?: number;
  type: "audio";
}

/**
 * The bash tool the API errors page lists (a defect patch: the document lacks it).
 */
export interface BashTool {
  type: "bash";
}

/**
 * A tool that can be used by the model to execute code.
 */
export interface CodeExecution {
  type: "code_execution";
}

/**
 * The arguments to pass to the code execution.
 */
export interface CodeExecutionCallArguments {
  /**
   * The code to be executed.
   */
  code?: string;
  /**
   * Programming language of the `code`.
   */
  language?: "python" | "bash";
}

export interface CodeExecutionCallDelta {
  arguments: CodeExecutionCallArguments;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "code_execution_call";
}

/**
 * Code execution call step.
 */
export interface CodeExecutionCallStep {
  /**
   * Required. The arguments to pass to the code execution.
   */
  arguments: CodeExecutionCallStepArguments;
  /**
   * Required. A unique ID for this specific tool call.
   */
  id: string;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "code_execution_call";
}

/**
 * The arguments to pass to the code execution.
 */
export interface CodeExecutionCallStepArguments {
  /**
   * The code to be executed.
   */
  code?: string;
  /**
   * Programming language of the `code`.
   */
  language?: "python" | "bash";
}

export interface CodeExecutionResultDelta {
  is_error?: boolean;
  result: string;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "code_execution_result";
}

/**
 * Code execution result step.
 */
export interface CodeExecutionResultStep {
  /**
   * Required. ID to match the ID from the function call block.
   */
  call_id: string;
  /**
   * Whether the code execution resulted in an error.
   */
  is_error?: boolean;
  /**
   * Required. The output of the code execution.
   */
  result: string;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "code_execution_result";
}

export interface CodeMenderAgentConfig {
  model?: string;
  session_id?: string;
  type: "code-mender";
}

/**
 * A tool that can be used by the model to interact with the computer.
 */
export interface ComputerUse {
  /**
   * Optional. Disabled safety policies for computer use.
   */
  disabled_safety_policies?: Array<"financial_transactions" | "sensitive_data_modification" | "communication_tool" | "account_creation" | "data_modification" | "user_consent_management" | "legal_terms_and_agreements">;
  /**
   * Whether enable the prompt injection detection check on computer-use
   * request.
   */
  enable_prompt_injection_detection?: boolean;
  /**
   * The environment being operated.
   */
  environment?: "browser" | "mobile" | "desktop";
  /**
   * The list of predefined functions that are excluded from the model call.
   */
  excluded_predefined_functions?: Array<string>;
  type: "computer_use";
}

/**
 * The content of the response.
 */
export type Content = AudioContent | DocumentContent | ImageContent | TextContent | VideoContent;

/**
 * Parameters for creating agent interactions
 */
export type CreateAgentInteractionParams = unknown & {
  /**
   * The name of the `Agent` used for generating the interaction.
   */
  agent: AgentOption;
  /**
   * Configuration parameters for the agent interaction.
   */
  agent_config?: AntigravityAgentConfig | CodeMenderAgentConfig | DeepResearchAgentConfig | DynamicAgentConfig;
  /**
   * Input only. Whether to run the model interaction in the background.
   */
  background?: boolean;
  /**
   * Required. Output only. The time at which the response was created in ISO 8601 format
   * (YYYY-MM-DDThh:mm:ssZ).
   */
  created?: string;
  /**
   * The environment configuration for the interaction. Can be an object specifying remote environment sources or a string referencing an existing environment ID.
   */
  environment?: EnvironmentConfig | string;
  /**
   * Output only. The environment ID for the interaction. Only populated if environment
   * config is set in the request.
   */
  environment_id?: string;
  /**
   * Required. Output only. A unique identifier for the interaction completion.
   */
  id?: string;
  input?: InteractionsInput;
  /**
   * The labels with user-defined metadata for the request.
   */
  labels?: Record<string, string>;
  /**
   * The ID of the previous interaction, if any.
   */
  previous_interaction_id?: string;
  /**
   * Enforces that the generated response is a JSON object that complies with the JSON schema specified in this field.
   */
  response_format?: ResponseFormat | Array<ResponseFormat>;
  /**
   * The mime type of the response. This is required if response_format is set.
   */
  response_mime_type?: string;
  /**
   * The requested modalities of the response (TEXT, IMAGE, AUDIO).
   */
  response_modalities?: Array<ResponseModality>;
  /**
   * Safety settings for the interaction.
   */
  safety_settings?: Array<SafetySetting>;
  /**
   * The service tier for the interaction.
   */
  service_tier?: ServiceTier;
  /**
   * Required. Output only. The status of the interaction.
   */
  status?: "in_progress" | "requires_action" | "completed" | "failed" | "cancelled" | "incomplete" | "budget_exceeded" | "queued" | "requires_continuation";
  /**
   * Input only. Whether to store the response and request for later retrieval.
   */
  store?: boolean;
  /**
   * Input only. Whether the interaction will be streamed.
   */
  stream?: boolean;
  /**
   * System instruction for the interaction.
   */
  system_instruction?: string;
  /**
   * A list of tool declarations the model may call during interaction.
   */
  tools?: Array<Tool>;
  /**
   * Required. Output only. The time at which the response was last updated in ISO 8601 format
   * (YYYY-MM-DDThh:mm:ssZ).
   */
  updated?: string;
  /**
   * Optional. Webhook configuration for receiving notifications when the
   * interaction completes.
   */
  webhook_config?: WebhookConfig;
  /**
   * The token of an interaction that stopped at requires_continuation (SDK 3.3.0).
   */
  continuation_token?: string;
};

/**
 * Request for `CreateEnvironment`.
 */
export interface CreateEnvironmentRequest {
  /**
   * Optional. The source environment to copy/fork from.
   * Format: `environments/{environment_id}` or `{environment_id}`.
   * When specified, `sources` and `env` must be empty.
   */
  from_environment?: string;
  /**
   * Network configuration for the environment.
   */
  network?: EnvironmentNetworkEgressAllowlist | "disabled";
  /**
   * Sources to be mounted into the environment.
   */
  sources?: Array<Source>;
}

/**
 * Parameters for creating model interactions
 */
export type CreateModelInteractionParams = unknown & {
  /**
   * Input only. Whether to run the model interaction in the background.
   */
  background?: boolean;
  /**
   * Required. Output only. The time at which the response was created in ISO 8601 format
   * (YYYY-MM-DDThh:mm:ssZ).
   */
  created?: string;
  /**
   * The environment configuration for the interaction. Can be an object specifying remote environment sources or a string referencing an existing environment ID.
   */
  environment?: EnvironmentConfig | string;
  /**
   * Output only. The environment ID for the interaction. Only populated if environment
   * config is set in the request.
   */
  environment_id?: string;
  /**
   * Input only. Configuration parameters for the model interaction.
   */
  generation_config?: GenerationConfig;
  /**
   * Required. Output only. A unique identifier for the interaction completion.
   */
  id?: string;
  input?: InteractionsInput;
  /**
   * The labels with user-defined metadata for the request.
   */
  labels?: Record<string, string>;
  /**
   * The name of the `Model` used for generating the interaction.
   */
  model: ModelOption;
  /**
   * The ID of the previous interaction, if any.
   */
  previous_interaction_id?: string;
  /**
   * Enforces that the generated response is a JSON object that complies with the JSON schema specified in this field.
   */
  response_format?: ResponseFormat | Array<ResponseFormat>;
  /**
   * The mime type of the response. This is required if response_format is set.
   */
  response_mime_type?: string;
  /**
   * The requested modalities of the response (TEXT, IMAGE, AUDIO).
   */
  response_modalities?: Array<ResponseModality>;
  /**
   * Safety settings for the interaction.
   */
  safety_settings?: Array<SafetySetting>;
  /**
   * The service tier for the interaction.
   */
  service_tier?: ServiceTier;
  /**
   * Required. Output only. The status of the interaction.
   */
  status?: "in_progress" | "requires_action" | "completed" | "failed" | "cancelled" | "incomplete" | "budget_exceeded" | "queued" | "requires_continuation";
  /**
   * Input only. Whether to store the response and request for later retrieval.
   */
  store?: boolean;
  /**
   * Input only. Whether the interaction will be streamed.
   */
  stream?: boolean;
  /**
   * System instruction for the interaction.
   */
  system_instruction?: string;
  /**
   * A list of tool declarations the model may call during interaction.
   */
  tools?: Array<Tool>;
  /**
   * Required. Output only. The time at which the response was last updated in ISO 8601 format
   * (YYYY-MM-DDThh:mm:ssZ).
   */
  updated?: string;
  /**
   * Optional. Webhook configuration for receiving notifications when the
   * interaction completes.
   */
  webhook_config?: WebhookConfig;
  /**
   * The token of an interaction that stopped at requires_continuation (SDK 3.3.0).
   */
  continuation_token?: string;
};

/**
 * Server-managed credential resource stored in Secret Manager.
 */
export interface Credential {
  /**
   * Output only. The timestamp when the credential was created.
   */
  create_time?: string;
  /**
   * Required. Output only. Identifier. Unique identifier for the credential.
   */
  id: string;
  /**
   * Output only. Current status of the credential.
   */
  status?: "active" | "revoked";
  /**
   * Required. Output only. The type of credential.
   */
  type?: "bearer_token" | "oauth2" | "environment_variable";
  /**
   * Output only. The timestamp when the credential was last updated.
   */
  update_time?: string;
}

/**
 * Represents the fields of a Credential provided on creation.
 */
export type CredentialCreateParams = EnvironmentVariableConfig | HttpBearerConfig | OAuth2Config;

/**
 * Represents the fields of a Credential that can be updated.
 */
export type CredentialUpdateParams = EnvironmentVariableUpdateConfig | HttpBearerUpdateConfig | OAuth2UpdateConfig;

/**
 * Configuration for the Deep Research agent.
 */
export interface DeepResearchAgentConfig {
  /**
   * Enables human-in-the-loop planning for the Deep Research agent. If set to
   * true, the Deep Research agent will provide a research plan in its response.
   * The agent will then proceed only if the user confirms the plan in the next
   * turn.
   */
  collaborative_planning?: boolean;
  /**
   * Whether to include thought summaries in the response.
   */
  thinking_summaries?: ThinkingSummaries;
  type: "deep-research";
  /**
   * Whether to include visualizations in the response.
   */
  visualization?: "off" | "auto";
}

/**
 * A document content block.
 */
export interface DocumentContent {
  /**
   * The document content.
   */
  data?: string;
  /**
   * The mime type of the document.
   */
  mime_type?: "application/pdf" | "text/csv";
  type: "document";
  /**
   * The URI of the document.
   */
  uri?: string;
}

export interface DocumentDelta {
  data?: string;
  mime_type?: "application/pdf" | "text/csv";
  type: "document";
  uri?: string;
}

/**
 * Configuration for dynamic agents.
 */
export type DynamicAgentConfig = {
  type: "dynamic";
} & Record<string, unknown>;

/**
 * A generic empty message that you can re-use to avoid defining duplicated
 * empty messages in your APIs. A typical example is to use it as the request
 * or the response type of an API method. For instance:
 *
 *     service Foo {
 *       rpc Bar(google.protobuf.Empty) returns (google.protobuf.Empty);
 *     }
 */
export type Empty = Record<string, unknown>;

/**
 * An environment variable to set in the execution environment.
 */
export interface EnvVar {
  /**
   * Optional reference to a server-managed Credential resource by ID.
   */
  credential?: string;
  /**
   * Direct string value for plain environment variables.
   */
  value?: string;
}

/**
 * An execution environment for an agent.
 */
export interface Environment {
  /**
   * Output only. The time at which the environment was created in ISO 8601 format
   * (YYYY-MM-DDThh:mm:ssZ).
   */
  created?: string;
  /**
   * Output only. The number of files in the environment, output only.
   */
  file_count?: string;
  /**
   * Required. Output only. The ID of the environment.
   */
  id: string;
  /**
   * Output only. The time at which the environment was last accessed in ISO 8601 format
   * (YYYY-MM-DDThh:mm:ssZ).
   */
  last_accessed?: string;
  /**
   * Network configuration for the environment.
   */
  network?: EnvironmentNetworkEgressAllowlist | "disabled";
  /**
   * Output only. The total size of the environment files in bytes, output only.
   */
  size_bytes?: string;
  /**
   * Sources to be mounted into the environment.
   */
  sources?: Array<Source>;
  /**
   * Output only. The status of the environment container.
   */
  status?: "active" | "expired";
  /**
   * Output only. The time at which the environment was last updated in ISO 8601 format
   * (YYYY-MM-DDThh:mm:ssZ).
   */
  updated?: string;
}

/**
 * Configuration for a custom environment.
 */
export interface EnvironmentConfig {
  /**
   * Environment variables to set in the sandbox environment.
   */
  env?: EnvVar | Record<string, EnvVar>;
  /**
   * Optional. The environment ID for the interaction. If specified, the request will
   * update the existing environment instead of creating a new one.
   */
  environment_id?: string;
  /**
   * Network configuration for the environment.
   */
  network?: EnvironmentNetworkEgressAllowlist | "disabled";
  sources?: Array<Source>;
  type: "remote";
}

/**
 * Metadata for a file or directory within an environment.
 */
export interface EnvironmentFile {
  /**
   * Output only. The creation time of the file/directory.
   */
  created?: string;
  /**
   * Output only. The MIME type of the file (e.g., "text/python", "image/png").
   * Empty for directories.
   * NOLINT
   */
  mime_type?: string;
  /**
   * Output only. The modification time of the file/directory.
   */
  modified?: string;
  /**
   * Output only. The name of the file or directory (e.g., "main.py" or "src").
   */
  name?: string;
  /**
   * Output only. The full relative path within the environment
   * (e.g., "workspace/src/main.py").
   */
  path?: string;
  /**
   * Output only. The size of the file/directory in bytes.
   * NOLINT
   */
  size_bytes?: string;
  /**
   * Output only. The type of the entry.
   */
  type?: "file" | "directory";
}

/**
 * Outbound networking configuration for the sandbox. Accepts an object with an 'allowlist' array to restrict traffic, or the string 'disabled' to turn off all network access. Omit entirely to allow all outbound traffic with no header injection.
 */
export type EnvironmentNetworkEgressAllowlist = {
  /**
   * List of allowed outbound domains. Only requests to listed domains are permitted. Use [{'domain': '*'}] to allow all domains while still injecting headers on specific ones.
   */
  allowlist?: Array<AllowlistEntry>;
} | "disabled";

/**
 * Configuration for environment variable credentials.
 */
export interface EnvironmentVariableConfig {
  id?: string;
  /**
   * Required. Locations where the environment variable can be injected in
   * outgoing HTTP requests. Must contain at least one location.
   * Accepts either a single location (e.g. "header") or an array of locations.
   */
  injection_location: InjectionLocation | Array<InjectionLocation>;
  /**
   * Optional. List of domains allowed to receive this environment variable
   * value in HTTP requests.
   */
  trusted_domains?: Array<string>;
  type: "environment_variable";
  /**
   * Required. Input only. Secret value of the environment variable. Write-only; never
   * returned in responses.
   */
  value: string;
}

/**
 * Configuration for updating environment variable credentials.
 */
export interface EnvironmentVariableUpdateConfig {
  /**
   * Optional. Locations where the environment variable can be injected in
   * outgoing HTTP requests.
   * Accepts either a single location (e.g. "header") or an array of locations.
   */
  injection_location?: InjectionLocation | Array<InjectionLocation>;
  /**
   * Optional. List of domains allowed to receive this environment variable
   * value in HTTP requests.
   */
  trusted_domains?: Array<string>;
  type: "environment_variable";
  /**
   * Optional. Input only. Secret value of the environment variable. Write-only; never
   * returned in responses.
   */
  value?: string;
}

/**
 * Error message from an interaction.
 */
export interface Error {
  /**
   * A URI that identifies the error type.
   */
  code?: string;
  /**
   * A human-readable error message.
   */
  message?: string;
}

export interface ErrorEvent {
  error?: Error;
  /**
   * The event_id token to be used to resume the interaction stream, from
   * this event.
   */
  event_id?: string;
  event_type: "error";
}

/**
 * A file citation annotation.
 */
export interface FileCitation {
  /**
   * User provided metadata about the retrieved context.
   */
  custom_metadata?: Record<string, unknown>;
  /**
   * The URI of the file.
   */
  document_uri?: string;
  /**
   * End of the attributed segment, exclusive.
   */
  end_index?: number;
  /**
   * The name of the file.
   */
  file_name?: string;
  /**
   * Media ID in-case of image citations, if applicable.
   */
  media_id?: string;
  /**
   * Page number of the cited document, if applicable.
   */
  page_number?: number;
  /**
   * Source attributed for a portion of the text.
   */
  source?: string;
  /**
   * Start of segment of the response that is attributed to this source.
   *
   * Index indicates the start of the segment, measured in bytes.
   */
  start_index?: number;
  type: "file_citation";
}

/**
 * A tool that can be used by the model to search files.
 */
export interface FileSearch {
  /**
   * The file search store names to search.
   */
  file_search_store_names?: Array<string>;
  /**
   * Metadata filter to apply to the semantic retrieval documents and chunks.
   */
  metadata_filter?: string;
  /**
   * The number of semantic retrieval chunks to retrieve.
   */
  top_k?: number;
  type: "file_search";
}

export interface FileSearchCallDelta {
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "file_search_call";
}

/**
 * File Search call step.
 */
export interface FileSearchCallStep {
  /**
   * Required. A unique ID for this specific tool call.
   */
  id: string;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "file_search_call";
}

/**
 * The result of the File Search.
 */
export type FileSearchResult = Record<string, unknown>;

export interface FileSearchResultDelta {
  result: Array<FileSearchResult>;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "file_search_result";
}

/**
 * File Search result step.
 */
export interface FileSearchResultStep {
  /**
   * Required. ID to match the ID from the function call block.
   */
  call_id: string;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "file_search_result";
}

/**
 * The filesystem tool the API errors page lists (a defect patch: the document lacks it).
 */
export interface FilesystemTool {
  type: "filesystem";
}

/**
 * A tool that can be used by the model.
 */
export interface Function {
  /**
   * A description of the function.
   */
  description?: string;
  /**
   * The name of the function.
   */
  name?: string;
  /**
   * The JSON Schema for the function's parameters.
   */
  parameters?: unknown;
  type: "function";
}

/**
 * A function tool call step.
 */
export interface FunctionCallStep {
  /**
   * Required. The arguments to pass to the function.
   */
  arguments: Record<string, unknown>;
  /**
   * Required. A unique ID for this specific tool call.
   */
  id: string;
  /**
   * Required. The name of the tool to call.
   */
  name: string;
  type: "function_call";
}

export interface FunctionResultDelta {
  is_error?: boolean;
  name?: string;
  result: Array<ImageContent | TextContent> | Record<string, unknown> | string;
  type: "function_result";
}

/**
 * Result of a function tool call.
 */
export interface FunctionResultStep {
  /**
   * Required. ID to match the ID from the function call block.
   */
  call_id: string;
  /**
   * Whether the tool call resulted in an error.
   */
  is_error?: boolean;
  /**
   * The name of the tool that was called.
   */
  name?: string;
  /**
   * Required. The result of the tool call.
   */
  result: Array<ImageContent | TextContent> | Record<string, unknown> | string;
  type: "function_result";
}

/**
 * Configuration parameters for model interactions.
 */
export interface GenerationConfig {
  /**
   * Configuration for image interaction.
   */
  image_config?: ImageConfig;
  /**
   * The maximum number of tokens to include in the response.
   */
  max_output_tokens?: number;
  /**
   * Seed used in decoding for reproducibility.
   */
  seed?: number;
  /**
   * Optional. Speech and multi-speaker configuration.
   */
  speech_config?: SpeakerConfig | Array<SpeechConfig>;
  /**
   * A list of character sequences that will stop output interaction.
   */
  stop_sequences?: Array<string>;
  /**
   * The level of thought tokens that the model should generate.
   */
  thinking_level?: ThinkingLevel;
  /**
   * Whether to include thought summaries in the response.
   */
  thinking_summaries?: ThinkingSummaries;
  /**
   * The tool choice configuration.
   */
  tool_choice?: ToolChoiceConfig | "auto" | "any" | "none" | "validated";
  /**
   * Optional. Configuration for speech recognition (transcription). If present, ASR is
   * enabled.
   */
  transcription_config?: TranscriptionConfig;
  /**
   * Configuration for video generation.
   */
  video_config?: VideoConfig;
}

/**
 * Response for `GetEnvironmentFiles`.
 */
export interface GetEnvironmentFilesResponse {
  /**
   * If the requested path is a directory, this contains its contents.
   * If the requested path is a file, this contains a single entry with the
   * file's metadata.
   * If alt=media was specified, this is empty (content is served via `blob`).
   */
  files?: Array<EnvironmentFile>;
  /**
   * Pagination token for directory listing.
   * NOLINT
   */
  next_page_token?: string;
}

/**
 * A tool that can be used by the model to call Google Maps.
 */
export interface GoogleMaps {
  /**
   * Whether to return a widget context token in the tool call result of the
   * response.
   */
  enable_widget?: boolean;
  /**
   * The latitude of the user's location.
   */
  latitude?: number;
  /**
   * The longitude of the user's location.
   */
  longitude?: number;
  type: "google_maps";
}

/**
 * The arguments to pass to the Google Maps tool.
 */
export interface GoogleMapsCallArguments {
  /**
   * The queries to be executed.
   */
  queries?: Array<string>;
}

export interface GoogleMapsCallDelta {
  /**
   * The arguments to pass to the Google Maps tool.
   */
  arguments?: GoogleMapsCallArguments;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "google_maps_call";
}

/**
 * Google Maps call step.
 */
export interface GoogleMapsCallStep {
  /**
   * The arguments to pass to the Google Maps tool.
   */
  arguments?: GoogleMapsCallStepArguments;
  /**
   * Required. A unique ID for this specific tool call.
   */
  id: string;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "google_maps_call";
}

/**
 * The arguments to pass to the Google Maps tool.
 */
export interface GoogleMapsCallStepArguments {
  /**
   * The queries to be executed.
   */
  queries?: Array<string>;
}

/**
 * The result of the Google Maps.
 */
export interface GoogleMapsResult {
  /**
   * The places that were found.
   */
  places?: Array<Places>;
  /**
   * Resource name of the Google Maps widget context token.
   */
  widget_context_token?: string;
}

export interface GoogleMapsResultDelta {
  /**
   * The results of the Google Maps.
   */
  result?: Array<GoogleMapsResult>;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "google_maps_result";
}

/**
 * The result of the Google Maps.
 */
export interface GoogleMapsResultItem {
  places?: Array<GoogleMapsResultPlaces>;
  widget_context_token?: string;
}

export interface GoogleMapsResultPlaces {
  name?: string;
  place_id?: string;
  review_snippets?: Array<ReviewSnippet>;
  url?: string;
}

/**
 * Google Maps result step.
 */
export interface GoogleMapsResultStep {
  /**
   * Required. ID to match the ID from the function call block.
   */
  call_id: string;
  result: Array<GoogleMapsResultItem>;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "google_maps_result";
}

/**
 * A tool that can be used by the model to search Google.
 */
export interface GoogleSearch {
  /**
   * The types of search grounding to enable.
   */
  search_types?: Array<"web_search" | "image_search">;
  type: "google_search";
}

/**
 * The arguments to pass to Google Search.
 */
export interface GoogleSearchCallArguments {
  /**
   * Web search queries for the following-up web search.
   */
  queries?: Array<string>;
}

export interface GoogleSearchCallDelta {
  arguments: GoogleSearchCallArguments;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "google_search_call";
}

/**
 * Google Search call step.
 */
export interface GoogleSearchCallStep {
  /**
   * Required. The arguments to pass to Google Search.
   */
  arguments: GoogleSearchCallStepArguments;
  /**
   * Required. A unique ID for this specific tool call.
   */
  id: string;
  /**
   * The type of search grounding enabled.
   */
  search_type?: "web_search" | "image_search";
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "google_search_call";
}

/**
 * The arguments to pass to Google Search.
 */
export interface GoogleSearchCallStepArguments {
  /**
   * Web search queries for the following-up web search.
   */
  queries?: Array<string>;
}

/**
 * The result of the Google Search.
 */
export interface GoogleSearchResult {
  /**
   * Web content snippet that can be embedded in a web page or an app webview.
   */
  search_suggestions?: string;
}

export interface GoogleSearchResultDelta {
  is_error?: boolean;
  result: Array<GoogleSearchResult>;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "google_search_result";
}

/**
 * The result of the Google Search.
 */
export interface GoogleSearchResultItem {
  /**
   * Web content snippet that can be embedded in a web page or an app webview.
   */
  search_suggestions?: string;
}

/**
 * Google Search result step.
 */
export interface GoogleSearchResultStep {
  /**
   * Required. ID to match the ID from the function call block.
   */
  call_id: string;
  /**
   * Whether the Google Search resulted in an error.
   */
  is_error?: boolean;
  /**
   * Required. The results of the Google Search.
   */
  result: Array<GoogleSearchResultItem>;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "google_search_result";
}

/**
 * The number of grounding tool counts.
 */
export interface GroundingToolCount {
  /**
   * The number of grounding tool counts.
   */
  count?: number;
  /**
   * The grounding tool type associated with the count.
   */
  type?: "google_search" | "google_maps";
}

/**
 * Configuration for HTTP Bearer token credentials.
 */
export interface HttpBearerConfig {
  /**
   * Optional. Header name to inject the token into. Defaults to
   * 'Authorization'.
   */
  header_name?: string;
  id?: string;
  /**
   * Optional. Prefix to prepend to the token. Defaults to 'Bearer'. Set to ''
   * for no prefix.
   */
  prefix?: string;
  /**
   * Required. Input only. The static bearer token. Write-only; never returned in responses.
   */
  token: string;
  type: "bearer_token";
}

/**
 * Configuration for updating HTTP Bearer token credentials.
 */
export interface HttpBearerUpdateConfig {
  /**
   * Optional. Header name to inject the token into. Defaults to
   * 'Authorization'.
   */
  header_name?: string;
  /**
   * Optional. Prefix to prepend to the token. Defaults to 'Bearer'. Set to ''
   * for no prefix.
   */
  prefix?: string;
  /**
   * Optional. Input only. The static bearer token. Write-only; never returned in responses.
   */
  token?: string;
  type: "bearer_token";
}

/**
 * The configuration for image interaction.
 */
export interface ImageConfig {
  aspect_ratio?: "1:1" | "2:3" | "3:2" | "3:4" | "4:3" | "4:5" | "5:4" | "9:16" | "16:9" | "21:9" | "1:8" | "8:1" | "1:4" | "4:1";
  image_size?: "1K" | "2K" | "4K" | "512";
}

/**
 * An image content block.
 */
export interface ImageContent {
  /**
   * The image content.
   */
  data?: string;
  /**
   * The mime type of the image.
   */
  mime_type?: "image/png" | "image/jpeg" | "image/webp" | "image/heic" | "image/heif" | "image/gif" | "image/bmp" | "image/tiff";
  /**
   * The resolution of the media.
   */
  resolution?: MediaResolution;
  type: "image";
  /**
   * The URI of the image.
   */
  uri?: string;
}

export interface ImageDelta {
  data?: string;
  mime_type?: "image/png" | "image/jpeg" | "image/webp" | "image/heic" | "image/heif" | "image/gif" | "image/bmp" | "image/tiff";
  /**
   * The resolution of the media.
   */
  resolution?: MediaResolution;
  type: "image";
  uri?: string;
}

/**
 * Configuration for image output format.
 */
export interface ImageResponseFormat {
  /**
   * The aspect ratio for the image output.
   */
  aspect_ratio?: "1:1" | "2:3" | "3:2" | "3:4" | "4:3" | "4:5" | "5:4" | "9:16" | "16:9" | "21:9" | "1:8" | "8:1" | "1:4" | "4:1";
  /**
   * The delivery mode for the image output.
   */
  delivery?: "inline" | "uri";
  /**
   * The size of the image output.
   */
  image_size?: "512" | "1K" | "2K" | "4K";
  /**
   * The MIME type of the image output.
   */
  mime_type?: "image/jpeg";
  type: "image";
}

export type InjectionLocation = "header" | "query" | "body";

/**
 * The Interaction resource.
 */
export interface Interaction {
  /**
   * The name of the `Agent` used for generating the interaction.
   */
  agent?: AgentOption;
  /**
   * Configuration parameters for the agent interaction.
   */
  agent_config?: AntigravityAgentConfig | CodeMenderAgentConfig | DeepResearchAgentConfig | DynamicAgentConfig;
  /**
   * Output only. The time at which the response was created in ISO 8601 format
   * (YYYY-MM-DDThh:mm:ssZ).
   */
  created?: string;
  /**
   * The environment configuration for the interaction. Can be an object specifying remote environment sources or a string referencing an existing environment ID.
   */
  environment?: EnvironmentConfig | string;
  /**
   * Output only. The environment ID for the interaction. Only populated if environment
   * config is set in the request.
   */
  environment_id?: string;
  /**
   * Output only. Diagnostic faults / platform errors recorded on the interaction.
   */
  errors?: Array<Error>;
  /**
   * Input only. Configuration parameters for the model interaction.
   */
  generation_config?: GenerationConfig;
  /**
   * Required. Output only. A unique identifier for the interaction completion.
   */
  id?: string;
  input?: InteractionsInput;
  /**
   * The labels with user-defined metadata for the request.
   */
  labels?: Record<string, string>;
  /**
   * The name of the `Model` used for generating the interaction.
   */
  model?: ModelOption;
  /**
   * The ID of the previous interaction, if any.
   */
  previous_interaction_id?: string;
  /**
   * Enforces that the generated response is a JSON object that complies with the JSON schema specified in this field.
   */
  response_format?: ResponseFormat | Array<ResponseFormat>;
  /**
   * The mime type of the response. This is required if response_format is set.
   */
  response_mime_type?: string;
  /**
   * The requested modalities of the response (TEXT, IMAGE, AUDIO).
   */
  response_modalities?: Array<ResponseModality>;
  /**
   * Safety settings for the interaction.
   */
  safety_settings?: Array<SafetySetting>;
  /**
   * The service tier for the interaction.
   */
  service_tier?: ServiceTier;
  /**
   * Required. Output only. The status of the interaction.
   */
  status: "in_progress" | "requires_action" | "completed" | "failed" | "cancelled" | "incomplete" | "budget_exceeded" | "queued" | "requires_continuation";
  /**
   * Output only. The steps that make up the interaction, when included in the response.
   */
  steps?: Array<Step>;
  /**
   * System instruction for the interaction.
   */
  system_instruction?: string;
  /**
   * A list of tool declarations the model may call during interaction.
   */
  tools?: Array<Tool>;
  /**
   * Output only. The time at which the response was last updated in ISO 8601 format
   * (YYYY-MM-DDThh:mm:ssZ).
   */
  updated?: string;
  /**
   * Output only. Statistics on the interaction request's token usage.
   */
  usage?: Usage;
  /**
   * Optional. Webhook configuration for receiving notifications when the
   * interaction completes.
   */
  webhook_config?: WebhookConfig;
}

export interface InteractionCompletedEvent {
  /**
   * The event_id token to be used to resume the interaction stream, from
   * this event.
   */
  event_id?: string;
  event_type: "interaction.completed";
  /**
   * Partial completed interaction resource emitted at the end of the stream.
   */
  interaction: InteractionSseEventInteraction;
}

export interface InteractionCreatedEvent {
  /**
   * The event_id token to be used to resume the interaction stream, from
   * this event.
   */
  event_id?: string;
  event_type: "interaction.created";
  /**
   * Partial interaction resource emitted when the stream is created.
   */
  interaction: InteractionSseEventInteraction;
}

export type InteractionSseEvent = ErrorEvent | InteractionCompletedEvent | InteractionCreatedEvent | InteractionStatusUpdate | StepDelta | StepStart | StepStop;

/**
 * Partial interaction resource emitted by interaction lifecycle SSE events.
 * Streaming lifecycle payloads may omit fields that are only available on
 * full non-streaming Interaction responses.
 */
export interface InteractionSseEventInteraction {
  /**
   * The agent to interact with.
   */
  agent?: string;
  /**
   * Output only. The time at which the response was created in ISO 8601 format.
   */
  created?: string;
  /**
   * Required. Output only. A unique identifier for the interaction completion.
   */
  id: string;
  /**
   * The model that will complete your prompt.
   */
  model?: string;
  /**
   * Output only. The resource type.
   */
  object?: string;
  /**
   * The service tier for the interaction.
   */
  service_tier?: ServiceTier;
  /**
   * Required. Output only. The status of the interaction.
   */
  status: "in_progress" | "requires_action" | "completed" | "failed" | "cancelled" | "incomplete" | "budget_exceeded" | "queued" | "requires_continuation";
  /**
   * Output only. The steps that make up the interaction, if included in this event.
   */
  steps?: Array<Step>;
  /**
   * Output only. The time at which the response was last updated in ISO 8601 format.
   */
  updated?: string;
  /**
   * Output only. Statistics on the interaction request's token usage.
   */
  usage?: Usage;
}

export interface InteractionSseStreamEvent {
  data: InteractionSseEvent;
}

export interface InteractionStatusUpdate {
  /**
   * The event_id token to be used to resume the interaction stream, from
   * this event.
   */
  event_id?: string;
  event_type: "interaction.status_update";
  interaction_id: string;
  status: "in_progress" | "requires_action" | "completed" | "failed" | "cancelled" | "incomplete" | "budget_exceeded" | "queued" | "requires_continuation";
}

/**
 * The input for the interaction.
 */
export type InteractionsInput = Content | Array<Step> | Array<Content> | string;

export interface ListAgentsResponse {
  /**
   * The list of agents.
   */
  agents?: Array<Agent>;
  /**
   * A token to retrieve the next page of results.
   */
  next_page_token?: string;
}

export interface ListCredentialsResponse {
  credentials?: Array<Credential>;
  next_page_token?: string;
}

/**
 * Response for `ListEnvironments`.
 */
export interface ListEnvironmentsResponse {
  /**
   * Environments belonging to the provided project.
   */
  environments?: Array<Environment>;
  /**
   * Pagination token.
   */
  next_page_token?: string;
}

/**
 * Response message for TriggerService.ListTriggerExecutions.
 */
export interface ListTriggerExecutionsResponse {
  /**
   * A page token, received from a previous `ListTriggerExecutions` call.
   * Provide this to retrieve the subsequent page.
   */
  next_page_token?: string;
  /**
   * The list of trigger executions.
   */
  trigger_executions?: Array<TriggerExecution>;
}

/**
 * Response message for TriggerService.ListTriggers.
 */
export interface ListTriggersResponse {
  /**
   * A page token, received from a previous `ListTriggers` call.
   * Provide this to retrieve the subsequent page.
   */
  next_page_token?: string;
  /**
   * The list of triggers.
   */
  triggers?: Array<Trigger>;
}

/**
 * Response message for WebhookService.ListWebhooks.
 */
export interface ListWebhooksResponse {
  /**
   * A token, which can be sent as `page_token` to retrieve the next page.
   * If this field is omitted, there are no subsequent pages.
   */
  next_page_token?: string;
  /**
   * The webhooks.
   */
  webhooks?: Array<Webhook>;
}

/**
 * A MCPServer is a server that can be called by the model to perform actions.
 */
export interface McpServer {
  /**
   * The allowed tools.
   */
  allowed_tools?: Array<AllowedTools>;
  /**
   * Optional: Fields for authentication headers, timeouts, etc., if needed.
   */
  headers?: Record<string, string>;
  /**
   * The name of the MCPServer.
   */
  name?: string;
  type: "mcp_server";
  /**
   * The full URL for the MCPServer endpoint.
   * Example: "https://api.example.com/mcp"
   */
  url?: string;
}

export interface McpServerToolCallDelta {
  arguments: Record<string, unknown>;
  name: string;
  server_name: string;
  type: "mcp_server_tool_call";
}

/**
 * MCPServer tool call step.
 */
export interface McpServerToolCallStep {
  /**
   * Required. The JSON object of arguments for the function.
   */
  arguments: Record<string, unknown>;
  /**
   * Required. A unique ID for this specific tool call.
   */
  id: string;
  /**
   * Required. The name of the tool which was called.
   */
  name: string;
  /**
   * Required. The name of the used MCP server.
   */
  server_name: string;
  type: "mcp_server_tool_call";
}

export interface McpServerToolResultDelta {
  name?: string;
  result: Array<ImageContent | TextContent> | Record<string, unknown> | string;
  server_name?: string;
  type: "mcp_server_tool_result";
}

/**
 * MCPServer tool result step.
 */
export interface McpServerToolResultStep {
  /**
   * Required. ID to match the ID from the function call block.
   */
  call_id: string;
  /**
   * Name of the tool which is called for this specific tool call.
   */
  name?: string;
  /**
   * Required. The output from the MCP server call. Can be simple text or rich content.
   */
  result: Array<ImageContent | TextContent> | Record<string, unknown> | string;
  /**
   * The name of the used MCP server.
   */
  server_name?: string;
  type: "mcp_server_tool_result";
}

export type MediaProcessing = StaticMediaProcessing;

export type MediaResolution = "low" | "medium" | "high" | "ultra_high";

/**
 * The token count for a single response modality.
 */
export interface ModalityTokens {
  /**
   * The modality associated with the token count.
   */
  modality?: ResponseModality;
  /**
   * Number of tokens for the modality.
   */
  tokens?: number;
}

/**
 * The model that will complete your prompt.\n\nSee [models](https://ai.google.dev/gemini-api/docs/models) for additional details.
 */
export type ModelOption = string;

/**
 * Output generated by the model.
 */
export interface ModelOutputStep {
  content?: Array<Content>;
  type: "model_output";
}

/**
 * Configuration for OAuth2 credentials with automatic token refresh.
 */
export interface OAuth2Config {
  /**
   * Required. OAuth2 client ID.
   */
  client_id: string;
  /**
   * Required. Input only. OAuth2 client secret. Write-only; never returned in responses.
   */
  client_secret: string;
  id?: string;
  /**
   * Required. Input only. OAuth2 refresh token. Write-only; never returned in responses.
   */
  refresh_token: string;
  /**
   * Optional. List of OAuth2 scopes.
   */
  scopes?: Array<string>;
  /**
   * Required. OAuth2 token endpoint URL for refreshing access tokens.
   */
  token_url: string;
  type: "oauth2";
}

/**
 * Configuration for updating OAuth2 credentials.
 */
export interface OAuth2UpdateConfig {
  /**
   * Optional. OAuth2 client ID.
   */
  client_id?: string;
  /**
   * Optional. Input only. OAuth2 client secret. Write-only; never returned in responses.
   */
  client_secret?: string;
  /**
   * Optional. Input only. OAuth2 refresh token. Write-only; never returned in responses.
   */
  refresh_token?: string;
  /**
   * Optional. List of OAuth2 scopes.
   */
  scopes?: Array<string>;
  /**
   * Optional. OAuth2 token endpoint URL for refreshing access tokens.
   */
  token_url?: string;
  type: "oauth2";
}

/**
 * Request message for WebhookService.PingWebhook.
 */
export type PingWebhookRequest = Record<string, unknown>;

/**
 * Response message for WebhookService.PingWebhook.
 */
export type PingWebhookResponse = Record<string, unknown>;

/**
 * A place citation annotation.
 */
export interface PlaceCitation {
  /**
   * End of the attributed segment, exclusive.
   */
  end_index?: number;
  /**
   * Title of the place.
   */
  name?: string;
  /**
   * The ID of the place, in `places/{place_id}` format.
   */
  place_id?: string;
  /**
   * Snippets of reviews that are used to generate answers about the
   * features of a given place in Google Maps.
   */
  review_snippets?: Array<ReviewSnippet>;
  /**
   * Start of segment of the response that is attributed to this source.
   *
   * Index indicates the start of the segment, measured in bytes.
   */
  start_index?: number;
  type: "place_citation";
  /**
   * URI reference of the place.
   */
  url?: string;
}

export interface Places {
  /**
   * Title of the place.
   */
  name?: string;
  /**
   * The ID of the place, in `places/{place_id}` format.
   */
  place_id?: string;
  /**
   * Snippets of reviews that are used to generate answers about the
   * features of a given place in Google Maps.
   */
  review_snippets?: Array<ReviewSnippet>;
  /**
   * URI reference of the place.
   */
  url?: string;
}

/**
 * Streaming delta for a server-initiated media processing step.
 */
export interface ProcessingCallDelta {
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "processing_call";
}

/**
 * A server-initiated processing step for media analysis (e.g. video
 * understanding).
 */
export interface ProcessingCallStep {
  /**
   * Required. A unique ID for this specific tool call.
   */
  id: string;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "processing_call";
}

/**
 * Streaming delta for the result of a server-initiated media processing step.
 */
export interface ProcessingResultDelta {
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "processing_result";
}

/**
 * The result of a server-initiated media processing step.
 */
export interface ProcessingResultStep {
  /**
   * Required. ID to match the ID from the function call block.
   */
  call_id: string;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "processing_result";
}

export type ResponseFormat = AudioResponseFormat | ImageResponseFormat | TextResponseFormat | VideoResponseFormat | Record<string, unknown>;

export type ResponseModality = "text" | "image" | "audio" | "video" | "document";

export interface RetrievalCallStep {
  arguments: Record<string, unknown>;
  id: string;
  retrieval_type?: string;
  signature?: string;
  type: "retrieval_call";
}

export interface RetrievalResultStep {
  call_id: string;
  is_error?: boolean;
  signature?: string;
  type: "retrieval_result";
}

/**
 * Encapsulates a snippet of a user review that answers a question about
 * the features of a specific place in Google Maps.
 */
export interface ReviewSnippet {
  /**
   * The ID of the review snippet.
   */
  review_id?: string;
  /**
   * Title of the review.
   */
  title?: string;
  /**
   * A link that corresponds to the user review on Google Maps.
   */
  url?: string;
}

/**
 * Request message for WebhookService.RotateSigningSecret.
 */
export interface RotateSigningSecretRequest {
  /**
   * Optional. The revocation behavior for previous signing secrets.
   */
  revocation_behavior?: "revoke_previous_secrets_after_h24" | "revoke_previous_secrets_immediately" | "REVOKE_PREVIOUS_SECRETS_AFTER_H24" | "REVOKE_PREVIOUS_SECRETS_IMMEDIATELY";
}

/**
 * Response message for WebhookService.RotateSigningSecret.
 */
export interface RotateSigningSecretResponse {
  /**
   * Output only. The newly generated signing secret.
   */
  secret?: string;
}

/**
 * Request message for TriggerService.RunTrigger.
 */
export type RunTriggerRequest = Record<string, unknown>;

export interface SafetySetting {
  category?: string;
  method?: string;
  threshold?: string;
}

export type ServiceTier = "flex" | "standard" | "priority";

/**
 * Represents a signing secret used to verify webhook payloads.
 */
export interface SigningSecret {
  /**
   * Output only. The expiration date of the signing secret.
   */
  expire_time?: string;
  /**
   * Output only. The truncated version of the signing secret.
   */
  truncated_secret?: string;
}

/**
 * Configuration for smart transcription mode.
 */
export interface SmartTranscriptionMode {
  type: "smart";
}

/**
 * A source to be mounted into the environment.
 */
export interface Source {
  /**
   * The inline content if `type` is `INLINE`.
   */
  content?: string;
  /**
   * Optional encoding for inline content (e.g. `base64`).
   */
  encoding?: string;
  /**
   * The source of the environment.
   * For Cloud Storage, this is the Cloud Storage path.
   * For GitHub, this is the GitHub path.
   */
  source?: string;
  /**
   * Where the source should appear in the environment.
   */
  target?: string;
  type?: "gcs" | "inline" | "repository";
}

/**
 * Configuration for multi-speaker and speech generation.
 */
export interface SpeakerConfig {
  /**
   * Individual speaker configurations.
   */
  speakers?: Array<SpeechConfig>;
}

/**
 * Speech annotation for text content.
 */
export interface SpeechAnnotation {
  /**
   * End of the attributed segment, exclusive.
   */
  end_index?: number;
  /**
   * The speaker to associate with this turn.
   */
  speaker?: string;
  /**
   * Start of segment of the response that is attributed to this source.
   *
   * Index indicates the start of the segment, measured in bytes.
   */
  start_index?: number;
  /**
   * Style instruction for the speech synthesis.
   */
  style?: string;
  type: "speech_metadata";
}

/**
 * The configuration for speech interaction.
 */
export interface SpeechConfig {
  /**
   * The language of the speech.
   */
  language?: string;
  /**
   * The speaker's name, it should match the speaker name given in the prompt.
   */
  speaker?: string;
  /**
   * The voice of the speaker.
   */
  voice?: string;
}

export interface StaticMediaProcessing {
  /**
   * Optional. Segment end time. Specified as a decimal number of seconds followed
   * by an 's' suffix, e.g., "30s". Must be non-negative and greater than
   * `start_offset` if `start_offset` is set.
   */
  end_offset?: string;
  /**
   * Optional. Video frame-rate sampling density.
   */
  fps?: number;
  /**
   * Optional. Segment start time. Specified as a decimal number of seconds followed
   * by an 's' suffix, e.g., "10.5s". Must be non-negative.
   */
  start_offset?: string;
  type: "static";
}

/**
 * A step in the interaction.
 */
export type Step = CodeExecutionCallStep | CodeExecutionResultStep | FileSearchCallStep | FileSearchResultStep | FunctionCallStep | FunctionResultStep | GoogleMapsCallStep | GoogleMapsResultStep | GoogleSearchCallStep | GoogleSearchResultStep | McpServerToolCallStep | McpServerToolResultStep | ModelOutputStep | ProcessingCallStep | ProcessingResultStep | RetrievalCallStep | RetrievalResultStep | ThoughtStep | UrlContextCallStep | UrlContextResultStep | UserInputStep;

export interface StepDelta {
  delta: StepDeltaData;
  /**
   * The event_id token to be used to resume the interaction stream, from
   * this event.
   */
  event_id?: string;
  event_type: "step.delta";
  index: number;
  metadata?: StepDeltaMetadata;
}

export type StepDeltaData = ArgumentsDelta | AudioDelta | CodeExecutionCallDelta | CodeExecutionResultDelta | DocumentDelta | FileSearchCallDelta | FileSearchResultDelta | FunctionResultDelta | GoogleMapsCallDelta | GoogleMapsResultDelta | GoogleSearchCallDelta | GoogleSearchResultDelta | ImageDelta | McpServerToolCallDelta | McpServerToolResultDelta | ProcessingCallDelta | ProcessingResultDelta | TextAnnotationDelta | TextDelta | ThoughtSignatureDelta | ThoughtSummaryDelta | UrlContextCallDelta | UrlContextResultDelta | VideoDelta;

/**
 * Optional metadata accompanying ANY streamed event.
 */
export interface StepDeltaMetadata {
  /**
   * Statistics on the interaction request's token usage.
   */
  total_usage?: Usage;
}

export interface StepStart {
  /**
   * The event_id token to be used to resume the interaction stream, from
   * this event.
   */
  event_id?: string;
  event_type: "step.start";
  index: number;
  step: Step;
}

export interface StepStop {
  /**
   * The event_id token to be used to resume the interaction stream, from
   * this event.
   */
  event_id?: string;
  event_type: "step.stop";
  index: number;
  /**
   * Model usage stats for this specific step.
   */
  step_usage?: Usage;
  /**
   * Cumulative model usage stats from the start of the session.
   */
  usage?: Usage;
}

export interface TextAnnotationDelta {
  /**
   * Citation information for model-generated content.
   */
  annotations?: Array<Annotation>;
  type: "text_annotation_delta";
}

/**
 * A text content block.
 */
export interface TextContent {
  /**
   * Citation information for model-generated content.
   */
  annotations?: Array<Annotation>;
  /**
   * Required. The text content.
   */
  text: string;
  type: "text";
}

export interface TextDelta {
  text: string;
  type: "text";
}

/**
 * Configuration for text output format.
 */
export interface TextResponseFormat {
  /**
   * The MIME type of the text output.
   */
  mime_type?: "application/json" | "text/plain";
  /**
   * The JSON schema that the output should conform to. Only applicable when
   * mime_type is application/json.
   */
  schema?: Record<string, unknown>;
  type: "text";
}

export type ThinkingLevel = "minimal" | "low" | "medium" | "high";

export type ThinkingSummaries = "auto" | "none";

export interface ThoughtSignatureDelta {
  /**
   * Signature to match the backend source to be part of the generation.
   */
  signature?: string;
  type: "thought_signature";
}

/**
 * A thought step.
 */
export interface ThoughtStep {
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  /**
   * A summary of the thought.
   */
  summary?: Array<ThoughtSummaryContent>;
  type: "thought";
}

export type ThoughtSummaryContent = ImageContent | TextContent;

export interface ThoughtSummaryDelta {
  /**
   * A new summary item to be added to the thought.
   */
  content?: Content;
  type: "thought_summary";
}

/**
 * A tool that can be used by the model.
 */
export type Tool = Function | CodeExecution | McpServer | FilesystemTool | GoogleMaps | GoogleSearch | BashTool | ComputerUse | FileSearch | UrlContext;

/**
 * The tool choice configuration containing allowed tools.
 */
export interface ToolChoiceConfig {
  /**
   * The allowed tools.
   */
  allowed_tools?: AllowedTools;
}

/**
 * Configuration for speech recognition (transcription).
 */
export interface TranscriptionConfig {
  /**
   * Optional. A list of phrases to bias the ASR model towards.
   */
  adaptation_phrases?: Array<string>;
  /**
   * Optional. A list of custom vocabulary phrases to bias the speech recognition model
   * toward recognizing specific terms.
   */
  custom_vocabulary?: Array<string>;
  /**
   * Optional. Configures speaker diarization. Supported values: "speaker".
   */
  diarization_mode?: string;
  /**
   * Optional. BCP-47 language codes providing hints about the languages present in the
   * audio. If omitted or empty, defaults to automatic language detection.
   */
  language_codes?: Array<string>;
  /**
   * Discriminated transcription mode options or enum.
   */
  mode?: TranscriptionMode | "verbatim" | "smart";
  /**
   * Optional. The granularity of timestamps to include in the transcription output.
   * Supported values: "word". If empty, no timestamps are generated.
   */
  timestamp_granularities?: Array<string>;
}

/**
 * Configuration for transcription mode.
 */
export type TranscriptionMode = SmartTranscriptionMode | VerbatimTranscriptionMode;

/**
 * A trigger configuration that is scheduled to run an agent.
 */
export interface Trigger {
  /**
   * Output only. The number of consecutive failures that have occurred
   * since the last successful execution.
   */
  consecutive_failure_count?: number;
  /**
   * Output only. The time when the trigger was created.
   */
  create_time?: string;
  /**
   * Optional. The display name of the trigger.
   */
  display_name?: string;
  /**
   * Optional. The environment ID for the trigger execution.
   */
  environment_id?: string;
  /**
   * Optional. The execution timeout for the triggered interaction.
   */
  execution_timeout_seconds?: number;
  /**
   * Required. Output only. Identifier. The ID of the trigger.
   */
  id: string;
  /**
   * Required. The interaction request template to be executed.
   */
  interaction: TriggerInteractionTemplate;
  /**
   * Output only. The time when the trigger was last paused.
   */
  last_pause_time?: string;
  /**
   * Output only. The time when the trigger was last resumed.
   */
  last_resume_time?: string;
  /**
   * Output only. The time when the trigger was last run.
   */
  last_run_time?: string;
  /**
   * Optional. The maximum number of consecutive failures allowed before
   * the trigger is automatically paused (status becomes ERROR).
   */
  max_consecutive_failures?: number;
  /**
   * Output only. The time when the trigger is scheduled to run next.
   */
  next_run_time?: string;
  /**
   * Output only. The ID of the last interaction created by this trigger.
   */
  previous_interaction_id?: string;
  /**
   * Required. The cron schedule on which the trigger should run.
   * Standard cron format.
   */
  schedule: string;
  /**
   * Output only. The current status of the trigger.
   */
  status?: "active" | "paused" | "error";
  /**
   * Required. Time zone in which the schedule should be interpreted.
   */
  time_zone: string;
  /**
   * Output only. The time when the trigger was last updated.
   */
  update_time?: string;
}

/**
 * Parameters for creating a trigger.
 */
export interface TriggerCreateParams {
  /**
   * Optional. The display name of the trigger.
   */
  display_name?: string;
  /**
   * Optional. The environment ID for the trigger execution.
   */
  environment_id?: string;
  /**
   * Optional. The execution timeout for the triggered interaction.
   */
  execution_timeout_seconds?: number;
  /**
   * Required. The interaction request template to be executed.
   */
  interaction: CreateAgentInteractionParams | CreateModelInteractionParams;
  /**
   * Optional. The maximum number of consecutive failures allowed before the trigger is automatically paused (status becomes ERROR).
   */
  max_consecutive_failures?: number;
  /**
   * Required. The cron schedule on which the trigger should run. Standard cron format.
   */
  schedule: string;
  /**
   * Required. Time zone in which the schedule should be interpreted.
   */
  time_zone: string;
}

/**
 * An execution instance of a trigger.
 */
export interface TriggerExecution {
  /**
   * Output only. The time when the execution finished.
   */
  end_time?: string;
  /**
   * Output only. The environment ID used for the execution.
   */
  environment_id?: string;
  /**
   * Output only. The error message if the execution failed.
   */
  error?: string;
  /**
   * Required. Output only. Identifier. The ID of the trigger execution.
   */
  id: string;
  /**
   * Output only. The ID of the interaction created by this execution, if any.
   */
  interaction_id?: string;
  /**
   * Output only. The time when the execution was scheduled to run.
   */
  scheduled_time?: string;
  /**
   * Output only. The time when the execution started.
   */
  start_time?: string;
  /**
   * Output only. The status of the execution.
   */
  status?: "in_progress" | "completed" | "failed" | "skipped" | "timed_out";
  /**
   * Required. Output only. Identifier. The ID of the trigger that created this execution.
   */
  trigger_id: string;
}

/**
 * The Interaction resource.
 */
export interface TriggerInteractionTemplate {
  /**
   * The name of the `Agent` used for generating the interaction.
   */
  agent?: AgentOption;
  /**
   * Configuration parameters for the agent interaction.
   */
  agent_config?: AntigravityAgentConfig | CodeMenderAgentConfig | DeepResearchAgentConfig | DynamicAgentConfig;
  /**
   * Output only. The time at which the response was created in ISO 8601 format
   * (YYYY-MM-DDThh:mm:ssZ).
   */
  created?: string;
  /**
   * The environment configuration for the interaction. Can be an object specifying remote environment sources or a string referencing an existing environment ID.
   */
  environment?: EnvironmentConfig | string;
  /**
   * Output only. The environment ID for the interaction. Only populated if environment
   * config is set in the request.
   */
  environment_id?: string;
  /**
   * Output only. Diagnostic faults / platform errors recorded on the interaction.
   */
  errors?: Array<Error>;
  /**
   * Input only. Configuration parameters for the model interaction.
   */
  generation_config?: GenerationConfig;
  /**
   * Required. Output only. A unique identifier for the interaction completion.
   */
  id?: string;
  input?: InteractionsInput;
  /**
   * The labels with user-defined metadata for the request.
   */
  labels?: Record<string, string>;
  /**
   * The name of the `Model` used for generating the interaction.
   */
  model?: ModelOption;
  /**
   * The ID of the previous interaction, if any.
   */
  previous_interaction_id?: string;
  /**
   * Enforces that the generated response is a JSON object that complies with the JSON schema specified in this field.
   */
  response_format?: ResponseFormat | Array<ResponseFormat>;
  /**
   * The mime type of the response. This is required if response_format is set.
   */
  response_mime_type?: string;
  /**
   * The requested modalities of the response (TEXT, IMAGE, AUDIO).
   */
  response_modalities?: Array<ResponseModality>;
  /**
   * Safety settings for the interaction.
   */
  safety_settings?: Array<SafetySetting>;
  /**
   * The service tier for the interaction.
   */
  service_tier?: ServiceTier;
  /**
   * Required. Output only. The status of the interaction.
   */
  status?: "in_progress" | "requires_action" | "completed" | "failed" | "cancelled" | "incomplete" | "budget_exceeded" | "queued";
  /**
   * Output only. The steps that make up the interaction, when included in the response.
   */
  steps?: Array<Step>;
  /**
   * System instruction for the interaction.
   */
  system_instruction?: string;
  /**
   * A list of tool declarations the model may call during interaction.
   */
  tools?: Array<Tool>;
  /**
   * Output only. The time at which the response was last updated in ISO 8601 format
   * (YYYY-MM-DDThh:mm:ssZ).
   */
  updated?: string;
  /**
   * Output only. Statistics on the interaction request's token usage.
   */
  usage?: Usage;
  /**
   * Optional. Webhook configuration for receiving notifications when the
   * interaction completes.
   */
  webhook_config?: WebhookConfig;
}

/**
 * Represents the fields of a Trigger that can be updated.
 */
export interface TriggerUpdate {
  /**
   * Optional. The display name of the trigger.
   */
  display_name?: string;
  /**
   * Optional. The status of the trigger.
   */
  status?: "active" | "paused" | "error";
}

/**
 * A URL citation annotation.
 */
export interface UrlCitation {
  /**
   * End of the attributed segment, exclusive.
   */
  end_index?: number;
  /**
   * Start of segment of the response that is attributed to this source.
   *
   * Index indicates the start of the segment, measured in bytes.
   */
  start_index?: number;
  /**
   * The title of the URL.
   */
  title?: string;
  type: "url_citation";
  /**
   * The URL.
   */
  url?: string;
}

/**
 * A tool that can be used by the model to fetch URL context.
 */
export interface UrlContext {
  type: "url_context";
}

/**
 * The arguments to pass to the URL context.
 */
export interface UrlContextCallArguments {
  /**
   * The URLs to fetch.
   */
  urls?: Array<string>;
}

export interface UrlContextCallDelta {
  arguments: UrlContextCallArguments;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "url_context_call";
}

/**
 * URL context call step.
 */
export interface UrlContextCallStep {
  /**
   * Required. The arguments to pass to the URL context.
   */
  arguments: UrlContextCallArguments;
  /**
   * Required. A unique ID for this specific tool call.
   */
  id: string;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "url_context_call";
}

/**
 * The result of the URL context.
 */
export interface UrlContextResult {
  /**
   * The status of the URL retrieval.
   */
  status?: "success" | "error" | "paywall" | "unsafe";
  /**
   * The URL that was fetched.
   */
  url?: string;
}

export interface UrlContextResultDelta {
  is_error?: boolean;
  result: Array<UrlContextResult>;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "url_context_result";
}

/**
 * URL context result step.
 */
export interface UrlContextResultStep {
  /**
   * Required. ID to match the ID from the function call block.
   */
  call_id: string;
  /**
   * Whether the URL context resulted in an error.
   */
  is_error?: boolean;
  /**
   * Required. The results of the URL context.
   */
  result: Array<UrlContextResult>;
  /**
   * A signature hash for backend validation.
   */
  signature?: string;
  type: "url_context_result";
}

/**
 * Statistics on the interaction request's token usage.
 */
export interface Usage {
  /**
   * A breakdown of cached token usage by modality.
   */
  cached_tokens_by_modality?: Array<ModalityTokens>;
  /**
   * Grounding tool count.
   */
  grounding_tool_count?: Array<GroundingToolCount>;
  /**
   * A breakdown of input token usage by modality.
   */
  input_tokens_by_modality?: Array<ModalityTokens>;
  /**
   * A breakdown of output token usage by modality.
   */
  output_tokens_by_modality?: Array<ModalityTokens>;
  /**
   * A breakdown of tool-use token usage by modality.
   */
  tool_use_tokens_by_modality?: Array<ModalityTokens>;
  /**
   * Number of tokens in the cached part of the prompt (the cached content).
   */
  total_cached_tokens?: number;
  /**
   * Number of tokens in the prompt (context).
   */
  total_input_tokens?: number;
  /**
   * Total number of tokens across all the generated responses.
   */
  total_output_tokens?: number;
  /**
   * Number of tokens of thoughts for thinking models.
   */
  total_thought_tokens?: number;
  /**
   * Total token count for the interaction request (prompt + responses + other
   * internal tokens).
   */
  total_tokens?: number;
  /**
   * Number of tokens present in tool-use prompt(s).
   */
  total_tool_use_tokens?: number;
}

/**
 * Input provided by the user.
 */
export interface UserInputStep {
  content?: Array<Content>;
  type: "user_input";
}

/**
 * Configuration for verbatim transcription mode.
 */
export interface VerbatimTranscriptionMode {
  /**
   * Optional. Configures speaker diarization. Supported values: "speaker".
   */
  diarization_mode?: string;
  /**
   * Optional. The granularity of timestamps to include in the transcription output.
   * Supported values: "word". If empty, no timestamps are generated.
   */
  timestamp_granularities?: Array<string>;
  type: "verbatim";
}

/**
 * Configuration options for video generation.
 */
export interface VideoConfig {
  /**
   * Optional task mode for video generation. If not specified, the model
   * automatically determines the appropriate mode based on the provided text
   * prompt and input media.
   */
  task?: "text_to_video" | "image_to_video" | "reference_to_video" | "edit" | "extend";
}

/**
 * A video content block.
 */
export interface VideoContent {
  /**
   * The video content.
   */
  data?: string;
  /**
   * The mime type of the video.
   */
  mime_type?: "video/mp4" | "video/mpeg" | "video/mpg" | "video/mov" | "video/avi" | "video/x-flv" | "video/webm" | "video/wmv" | "video/3gpp";
  /**
   * A user-defined name for this content block. Can be referenced by the model
   * in the final response.
   */
  name?: string;
  /**
   * How the model processes this video for understanding.
   */
  processing?: MediaProcessing | "static" | "agentic";
  /**
   * The resolution of the media.
   */
  resolution?: MediaResolution;
  type: "video";
  /**
   * The URI of the video.
   */
  uri?: string;
}

export interface VideoDelta {
  data?: string;
  mime_type?: "video/mp4" | "video/mpeg" | "video/mpg" | "video/mov" | "video/avi" | "video/x-flv" | "video/webm" | "video/wmv" | "video/3gpp" | "video/jpeg2000";
  /**
   * The resolution of the media.
   */
  resolution?: MediaResolution;
  type: "video";
  uri?: string;
}

/**
 * Configuration for video output format.
 */
export interface VideoResponseFormat {
  /**
   * The aspect ratio for the video output.
   */
  aspect_ratio?: "16:9" | "9:16";
  /**
   * The delivery mode for the video output.
   */
  delivery?: "inline" | "uri";
  /**
   * The duration for the video output.
   */
  duration?: string;
  /**
   * The video output resolution. Defaults to 720p.
   */
  resolution?: "360p" | "720p" | "1080p" | "4k";
  type: "video";
}

/**
 * A Webhook resource.
 */
export interface Webhook {
  /**
   * Output only. The timestamp when the webhook was created.
   */
  create_time?: string;
  /**
   * Output only. The ID of the webhook.
   */
  id?: string;
  /**
   * Optional. The user-provided name of the webhook.
   */
  name?: string;
  /**
   * Output only. The new signing secret for the webhook. Only populated on create.
   */
  new_signing_secret?: string;
  /**
   * Output only. The signing secrets associated with this webhook.
   */
  signing_secrets?: Array<SigningSecret>;
  /**
   * Output only. The state of the webhook.
   */
  state?: "enabled" | "disabled" | "disabled_due_to_failed_deliveries";
  /**
   * Required. The events that the webhook is subscribed to.
   * Available events:
   * - batch.succeeded
   * - batch.expired
   * - batch.failed
   * - interaction.requires_action
   * - interaction.completed
   * - interaction.failed
   * - video.generated
   */
  subscribed_events: Array<string>;
  /**
   * Output only. The timestamp when the webhook was last updated.
   */
  update_time?: string;
  /**
   * Required. The URI to which webhook events will be sent.
   */
  uri: string;
}

/**
 * Message for configuring webhook events for a request.
 */
export interface WebhookConfig {
  /**
   * Optional. If set, these webhook URIs will be used for webhook events instead of the
   * registered webhooks.
   */
  uris?: Array<string>;
  /**
   * Optional. The user metadata that will be returned on each event emission to the
   * webhooks.
   */
  user_metadata?: Record<string, unknown>;
}

export interface WebhookUpdate {
  /**
   * Optional. The user-provided name of the webhook.
   */
  name?: string;
  /**
   * Optional. The state of the webhook.
   */
  state?: "enabled" | "disabled" | "disabled_due_to_failed_deliveries";
  /**
   * Optional. The events that the webhook is subscribed to.
   * Available events:
   * - batch.succeeded
   * - batch.expired
   * - batch.failed
   * - interaction.requires_action
   * - interaction.completed
   * - interaction.failed
   * - video.generated
   */
  subscribed_events?: Array<string>;
  /**
   * Optional. The URI to which webhook events will be sent.
   */
  uri?: string;
}

/**
 * Word-level ASR annotation for transcription output.
 * Carries the word text, optional timing, and optional speaker attribution.
 */
export interface WordInfo {
  /**
   * End of the attributed segment, exclusive.
   */
  end_index?: number;
  /**
   * End offset in time of the word relative to the start of the audio.
   * Present when timestamp_granularities contains "word".
   */
  end_offset?: string;
  /**
   * Optional. Speaker label for this word (e.g. "spk_1", "spk_2").
   * Present when diarization_mode is set in TranscriptionConfig.
   */
  speaker?: string;
  /**
   * Start of segment of the response that is attributed to this source.
   *
   * Index indicates the start of the segment, measured in bytes.
   */
  start_index?: number;
  /**
   * Start offset in time of the word relative to the start of the audio.
   * Present when timestamp_granularities contains "word".
   */
  start_offset?: string;
  /**
   * The transcribed word.
   */
  text?: string;
  type: "word_info";
}

// Each operation's bodies, named from its operationId.
export type CancelInteractionByIdResponseBody = Interaction;
export type CreateAgentRequestBody = Agent;
export type CreateAgentResponseBody = Agent;
export type CreateCredentialRequestBody = CredentialCreateParams;
export type CreateCredentialResponseBody = Credential;
export type CreateEnvironmentRequestBody = CreateEnvironmentRequest;
export type CreateEnvironmentResponseBody = Environment;
export type CreateInteractionRequestBody = CreateAgentInteractionParams | CreateModelInteractionParams;
export type CreateInteractionResponseBody = Interaction;
export type CreateInteractionStreamEvent = InteractionSseEvent;
export type CreateTriggerRequestBody = TriggerCreateParams;
export type CreateTriggerResponseBody = Trigger;
export type CreateWebhookRequestBody = Webhook;
export type CreateWebhookResponseBody = Webhook;
export type DeleteAgentResponseBody = Empty;
export type DeleteCredentialResponseBody = Empty;
export type DeleteEnvironmentResponseBody = Empty;
export type DeleteTriggerResponseBody = Empty;
export type DeleteWebhookResponseBody = Empty;
export type GetAgentResponseBody = Agent;
export type GetCredentialResponseBody = Credential;
export type GetEnvironmentResponseBody = Environment;
export type GetEnvironmentFilesResponseBody = GetEnvironmentFilesResponse;
export type GetInteractionByIdResponseBody = Interaction;
export type GetInteractionByIdStreamEvent = InteractionSseEvent;
export type GetTriggerResponseBody = Trigger;
export type GetWebhookResponseBody = Webhook;
export type ListAgentsResponseBody = ListAgentsResponse;
export type ListCredentialsResponseBody = ListCredentialsResponse;
export type ListEnvironmentsResponseBody = ListEnvironmentsResponse;
export type ListTriggerExecutionsResponseBody = ListTriggerExecutionsResponse;
export type ListTriggersResponseBody = ListTriggersResponse;
export type ListWebhooksResponseBody = ListWebhooksResponse;
export type PingWebhookRequestBody = PingWebhookRequest;
export type PingWebhookResponseBody = PingWebhookResponse;
export type RotateSigningSecretRequestBody = RotateSigningSecretRequest;
export type RotateSigningSecretResponseBody = RotateSigningSecretResponse;
/** RunTrigger has no requestBody in the document: its request message stands for the body. */
export type RunTriggerRequestBody = RunTriggerRequest;
export type RunTriggerResponseBody = TriggerExecution;
export type UpdateCredentialRequestBody = CredentialUpdateParams;
export type UpdateCredentialResponseBody = Credential;
export type UpdateTriggerRequestBody = TriggerUpdate;
export type UpdateTriggerResponseBody = Trigger;
export type UpdateWebhookRequestBody = WebhookUpdate;
export type UpdateWebhookResponseBody = Webhook;
