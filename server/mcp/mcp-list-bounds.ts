// What reading servers' tool lists may cost one interaction run (docs/security.md#bounded-work). The
// per-answer cap (EMULATOR_MCP_RESPONSE_BYTES) bounds one HTTP answer, not the list: a server whose
// pages each hold 15 tools with 1 MiB names and always a nextCursor drove the emulator out of memory.
// So the list is bounded as a whole: tools and pages per server, and the bytes all servers of one run
// send while their lists are read, together. Past a bound the server is unusable for the run, and each
// of its calls is an `is_error` result naming the bound; the emulator keeps only names of a length the
// service allows (a function name is at most 128 characters: FunctionCall.name in the SDK's types).

/** The longest tool name kept: the service's limit on a function's name (and MCP's advice for tool names). */
export const MAX_TOOL_NAME_CHARS = 128;

export interface McpListBounds {
  /** Tools one server may list (EMULATOR_MCP_MAX_TOOLS). */
  maxTools: number;
  /** Pages of one server's tool list (EMULATOR_MCP_MAX_LIST_PAGES). */
  maxPages: number;
  /** Bytes all servers of one run may send while their tool lists are read (EMULATOR_MCP_MAX_LIST_BYTES). */
  maxBytes: number;
}

export const DEFAULT_MCP_LIST_BOUNDS: McpListBounds = { maxTools: 1000, maxPages: 100, maxBytes: 16 * 1024 * 1024 };

/** A bound of the tool lists was passed; its message names the bound and its setting. */
export class McpListTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpListTooLargeError";
  }
}

/** The bytes one run's servers have sent while their tool lists were read, against the run's bound. */
export class ListByteBudget {
  private spent = 0;

  constructor(readonly maxBytes: number) {}

  /** Counts `bytes`; the error to fail the listing with once the bound is passed. */
  spend(bytes: number): McpListTooLargeError | undefined {
    this.spent += bytes;
    if (this.spent <= this.maxBytes) return undefined;
    return new McpListTooLargeError(
      `the tool lists of this interaction's MCP servers passed ${this.maxBytes} bytes together (EMULATOR_MCP_MAX_LIST_BYTES), so the emulator stopped reading them`,
    );
  }
}

/** The tool names of one server's list as they are read, page by page, within the bounds. */
export class ToolListReader {
  readonly names = new Set<string>();
  /** The callable tools with their descriptions and input schemas, in the order listed (a model is told of them). */
  readonly listed: Array<{ name: string; description: string; inputSchema: Record<string, unknown> }> = [];
  /** Names longer than the service allows: never callable, counted for the message. */
  longNames = 0;
  private pages = 0;

  constructor(private readonly bounds: McpListBounds) {}

  /** Takes one page; throws McpListTooLargeError past a bound. */
  addPage(tools: ReadonlyArray<{ name: unknown; description?: unknown; inputSchema?: unknown }>): void {
    this.pages++;
    for (const tool of tools) {
      if (this.names.size + this.longNames >= this.bounds.maxTools) {
        throw new McpListTooLargeError(
          `the server lists more than ${this.bounds.maxTools} tools (EMULATOR_MCP_MAX_TOOLS), so the emulator stopped reading its list`,
        );
      }
      const name = typeof tool.name === "string" ? tool.name : "";
      if (name.length === 0 || name.length > MAX_TOOL_NAME_CHARS) this.longNames++;
      else if (!this.names.has(name)) {
        this.names.add(name);
        const { description, inputSchema } = tool;
        this.listed.push({
          name,
          description: typeof description === "string" ? description : "",
          inputSchema: isPlainObject(inputSchema) ? inputSchema : { type: "object" },
        });
      }
    }
  }

  /** Whether another page may be asked for; throws McpListTooLargeError when the page bound is reached. */
  checkMorePages(): void {
    if (this.pages >= this.bounds.maxPages) {
      throw new McpListTooLargeError(
        `the server's tool list goes on past ${this.bounds.maxPages} pages (EMULATOR_MCP_MAX_LIST_PAGES), so the emulator stopped reading it`,
      );
    }
  }
}

/** At most this many names in a message that says what a server lists. */
const MAX_NAMES_SHOWN = 20;

/** "a, b, c" or "a, b, … and 480 more", and the names the emulator skipped, for the result of a call of a missing tool. */
export function describeListedTools(reader: Pick<ToolListReader, "names" | "longNames">): string {
  const listed = [...reader.names].sort();
  const shown =
    listed.length === 0
      ? "no tools"
      : listed.length <= MAX_NAMES_SHOWN
        ? listed.join(", ")
        : `${listed.slice(0, MAX_NAMES_SHOWN).join(", ")}, … and ${listed.length - MAX_NAMES_SHOWN} more`;
  const skipped =
    reader.longNames === 0
      ? ""
      : ` (and ${reader.longNames} tool${reader.longNames === 1 ? "" : "s"} whose name is empty or longer than ${MAX_TOOL_NAME_CHARS} characters, which cannot be called)`;
  return `${shown}${skipped}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
