// The mime_type of an EnvironmentFile, from its name's extension: a fixed table (no dependency, same
// answer on every machine). Unknown extensions are application/octet-stream.

const TYPES: Record<string, string> = {
  txt: "text/plain", md: "text/markdown", csv: "text/csv", tsv: "text/tab-separated-values", log: "text/plain",
  html: "text/html", htm: "text/html", css: "text/css", xml: "application/xml", svg: "image/svg+xml",
  json: "application/json", jsonl: "application/jsonl", yaml: "application/yaml", yml: "application/yaml", toml: "application/toml",
  js: "text/javascript", mjs: "text/javascript", cjs: "text/javascript", ts: "text/x-typescript", tsx: "text/x-typescript", jsx: "text/javascript",
  py: "text/x-python", rb: "text/x-ruby", go: "text/x-go", rs: "text/x-rust", java: "text/x-java", kt: "text/x-kotlin",
  c: "text/x-c", h: "text/x-c", cc: "text/x-c++", cpp: "text/x-c++", hpp: "text/x-c++", cs: "text/x-csharp",
  sh: "application/x-sh", bash: "application/x-sh", sql: "application/sql", ipynb: "application/x-ipynb+json",
  png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp", bmp: "image/bmp", ico: "image/vnd.microsoft.icon",
  pdf: "application/pdf", zip: "application/zip", gz: "application/gzip", tgz: "application/gzip", tar: "application/x-tar",
  bz2: "application/x-bzip2", xz: "application/x-xz", "7z": "application/x-7z-compressed",
  mp3: "audio/mpeg", wav: "audio/wav", ogg: "audio/ogg", mp4: "video/mp4", webm: "video/webm", mov: "video/quicktime",
  wasm: "application/wasm", bin: "application/octet-stream",
};

export function mimeTypeOf(name: string): string {
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "application/octet-stream";
  return TYPES[name.slice(dot + 1).toLowerCase()] ?? "application/octet-stream";
}
