// Feature gates named by the spec, with their default states.

export const FEATURE_DEFAULTS = {
  APIResponseCompression: true,
  CBORServingAndStorage: false,
  ListFromCacheSnapshot: true,
  WatchList: true,
  AllowUnsafeMalformedObjectDeletion: false,
} as const;

export type FeatureName = keyof typeof FEATURE_DEFAULTS;

/**
 * Each gate's maturity as upstream reports it (component-base featuregate.PreRelease: "ALPHA", "BETA",
 * "" once GA), the `stage` label of `kubernetes_feature_enabled` on /metrics. A gate on by default is
 * at least beta upstream (alpha gates are never on by default), so ours are staged to match their defaults.
 */
export const FEATURE_STAGES: Readonly<Record<FeatureName, 'ALPHA' | 'BETA' | '' | 'DEPRECATED'>> = {
  APIResponseCompression: 'BETA',
  CBORServingAndStorage: 'ALPHA',
  ListFromCacheSnapshot: 'BETA',
  WatchList: 'BETA',
  AllowUnsafeMalformedObjectDeletion: 'ALPHA',
};
export type FeatureGates = Readonly<Record<FeatureName, boolean>>;

/** Parses `A=true,B=false` as kube-apiserver's --feature-gates does; throws on unknown gates or values. */
export function parseFeatureGates(spec: string | undefined): FeatureGates {
  const gates: Record<FeatureName, boolean> = { ...FEATURE_DEFAULTS };
  if (!spec) return gates;
  for (const part of spec.split(',')) {
    const item = part.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    if (eq < 0) throw new Error(`missing bool value for ${item}`);
    const name = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (!(name in FEATURE_DEFAULTS)) throw new Error(`unrecognized feature gate: ${name}`);
    if (value !== 'true' && value !== 'false') throw new Error(`invalid value of ${name}=${value}, err: strconv.ParseBool: parsing "${value}": invalid syntax`);
    gates[name as FeatureName] = value === 'true';
  }
  return gates;
}
