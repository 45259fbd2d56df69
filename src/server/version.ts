// The upstream API level we are compatible with: version-dispatching clients pick their kubectl from it.
export const VERSION_INFO = {
  major: '1',
  minor: '33',
  emulationMajor: '1',
  emulationMinor: '33',
  minCompatibilityMajor: '1',
  minCompatibilityMinor: '32',
  gitVersion: 'v1.33.0-periscope.1',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-11-23T00:00:00Z',
  goVersion: 'node' + process.versions.node,
  compiler: 'tsx',
  platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};
