// The Kubernetes CEL libraries in the admission environment (ValidatingAdmissionPolicy and webhook match
// conditions use upstream's base environment, the same libraries CRD rules have).
import { describe, expect, it } from 'vitest';
import { compileAdmissionCel, evalCel, toCel } from '../admission/cel.js';

async function run(expression: string, object: unknown): Promise<unknown> {
  const c = compileAdmissionCel(expression);
  if (!c.ok) throw new Error(c.message);
  return evalCel(c.program, { object: toCel(object), oldObject: null, request: {}, params: null, namespaceObject: null, variables: {} });
}

describe('Kubernetes CEL libraries in admission expressions', () => {
  const cm = { data: { url: 'https://example.com:8443/x', mem: '512Mi', ip: '10.0.0.7', name: 'web-1', tags: 'b,a' } };

  it.each([
    ['url(object.data.url).getPort() == "8443" && isURL(object.data.url)', true],
    ['quantity(object.data.mem).isLessThan(quantity("1Gi")) && isQuantity(object.data.mem)', true],
    ['cidr("10.0.0.0/24").containsIP(object.data.ip) && ip(object.data.ip).family() == 4', true],
    ['!format.dns1123Label().validate(object.data.name).hasValue()', true],
    ['sets.equivalent(object.data.tags.split(","), ["a", "b"]) && !object.data.tags.split(",").isSorted()', true],
    ['object.data.name.find("[0-9]+") == "1" && object.data.name.charAt(0) == "w" && strings.quote("x") == "\\"x\\""', true],
  ])('%s', async (expression, want) => {
    expect(await run(expression, cm)).toBe(want);
  });

  it('reports the libraries\' errors as upstream', async () => {
    await expect(run('ip(object.data.name).family() == 4', cm)).rejects.toThrow(`IP Address "web-1" parse error during conversion from string: ParseAddr("web-1"): unable to parse IP`);
    await expect(run('quantity(object.data.name).sign() == 1', cm)).rejects.toThrow("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  });

  it('still refuses unknown functions at compile time', () => {
    const c = compileAdmissionCel('object.data.name.frobnicate()');
    expect(c.ok).toBe(false);
  });
});
