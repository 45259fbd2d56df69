import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  GROUP_ALIASES, canonicalAnnotation, canonicalApiVersion, canonicalGroup, canonicalMediaType, groupSpelledLike, groupSpellings, isAliasGroup, upstreamGroup,
} from './names.js';

describe('group aliases', () => {
  it('maps both ways and leaves other groups alone', () => {
    expect(canonicalGroup('rbac.authorization.k8s.io')).toBe('rbac.authorization.service.io');
    expect(canonicalGroup('rbac.authorization.service.io')).toBe('rbac.authorization.service.io');
    expect(upstreamGroup('coordination.service.io')).toBe('coordination.k8s.io');
    expect(canonicalGroup('policy')).toBe('policy');
    expect(upstreamGroup('apps')).toBe('apps');
    expect(isAliasGroup('meta.k8s.io')).toBe(true);
    expect(isAliasGroup('meta.service.io')).toBe(true);
    expect(isAliasGroup('policy')).toBe(false);
    expect(groupSpellings('apiextensions.k8s.io')).toEqual(['apiextensions.service.io', 'apiextensions.k8s.io']);
    expect(groupSpellings('')).toEqual(['']);
    expect(canonicalApiVersion('rbac.authorization.k8s.io/v1')).toBe('rbac.authorization.service.io/v1');
    expect(canonicalApiVersion('v1')).toBe('v1');
  });

  it('spells a group like the group a request named', () => {
    expect(groupSpelledLike('rbac.authorization.service.io', 'apidiscovery.k8s.io')).toBe('rbac.authorization.k8s.io');
    expect(groupSpelledLike('rbac.authorization.k8s.io', 'apidiscovery.service.io')).toBe('rbac.authorization.service.io');
    expect(groupSpelledLike('apps', 'apidiscovery.k8s.io')).toBe('apps');
    expect(groupSpelledLike('stable.example.com', 'apidiscovery.service.io')).toBe('stable.example.com');
  });

  it('aliases the protobuf media type and the initial-events annotation', () => {
    expect(canonicalMediaType('application/vnd.kubernetes.protobuf;stream=watch')).toBe('application/vnd.service.protobuf;stream=watch');
    expect(canonicalMediaType('application/json')).toBe('application/json');
    expect(canonicalAnnotation('k8s.io/initial-events-end')).toBe('service.io/initial-events-end');
  });

  it('keeps GROUP_ALIASES a flat literal the derive script can read', () => {
    const text = readFileSync(new URL('./names.ts', import.meta.url), 'utf8');
    const block = /GROUP_ALIASES[^=]*=\s*\{([^}]*)\}/.exec(text)!;
    const parsed = Object.fromEntries([...block[1]!.matchAll(/'([^']+)'\s*:\s*'([^']+)'/g)].map((m) => [m[1], m[2]]));
    expect(parsed).toEqual(GROUP_ALIASES);
  });
});
