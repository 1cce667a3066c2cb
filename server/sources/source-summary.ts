// What an environment keeps of each source after it was placed: where it went and how big it was,
// never the inline content itself (that lives only in the sandbox).

export interface SourceSummary {
  type: string;
  target: string;
  encoding?: string;
  source?: string;
  size_bytes: number;
}
