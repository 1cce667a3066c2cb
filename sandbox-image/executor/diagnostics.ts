// stdout belongs to the frame protocol; anything human-readable goes to stderr, which the server logs.

export function logDiagnostic(message: string): void {
  process.stderr.write(`executor[${process.pid}]: ${message}\n`);
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
