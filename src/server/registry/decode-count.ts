// How many times this process turned stored bytes into an object. Each object version should be decoded once
// per process (the watch cache's copy, shared read-only by the API and the in-process controllers): the figure
// is served as periscope_storage_decodes_total on /metrics and printed by the cluster bench.
let decodes = 0;

export function countDecode(): void {
  decodes++;
}

/** Decodes of stored objects since the process started. */
export function storageDecodes(): number {
  return decodes;
}
