// Started by accept-handles.ts: receives the HTTP server's listening socket as a bare handle (it never
// listens on it, so it takes no connection) and passes it back `count` times, each pass a new
// descriptor of the same socket in the emulator. Node sends one handle at a time, each after the
// emulator acknowledged the one before, so this process stays until the emulator has them all and
// ends it (or goes away).

process.once("disconnect", () => process.exit(0));
process.once("message", (message: { count?: unknown }, handle: unknown) => {
  const count = typeof message.count === "number" && Number.isInteger(message.count) ? message.count : 0;
  if (!handle || count <= 0 || !process.send) process.exit(1);
  for (let i = 0; i < count; i++) {
    process.send("handle", handle as never, undefined, (error) => {
      if (error) process.exit(1);
    });
  }
});
