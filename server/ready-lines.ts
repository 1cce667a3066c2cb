// What `npm start` and `interactions-emulator start` print once the emulator answers: where its API is
// (tests and scripts wait for the "listening on" line), and where its dashboard is.

export function readyLines(url: string, dataDir: string): string[] {
  return [
    `Interactions emulator listening on ${url} (data: ${dataDir})`,
    `Dashboard: ${url}/ui (sign in with your API key; ${url}/ui?key=KEY opens it signed in)`,
  ];
}
