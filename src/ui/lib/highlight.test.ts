import { describe, expect, it } from 'vitest';
import { highlightJsonLine, highlightYamlLine } from './highlight.js';

const classes = (ts: { text: string; cls: string }[]) => ts.filter((t) => t.cls !== 'plain').map((t) => `${t.cls}:${t.text}`);

describe('highlight', () => {
  it('marks YAML keys, scalars and list items', () => {
    expect(classes(highlightYamlLine('  replicas: 3'))).toEqual(['key:replicas', 'punct::', 'number:3']);
    expect(classes(highlightYamlLine('- name: web'))).toEqual(['punct:- ', 'key:name', 'punct::', 'string:web']);
    expect(classes(highlightYamlLine('  "a:b": true'))).toEqual(['key:"a:b"', 'punct::', 'literal:true']);
    expect(classes(highlightYamlLine('  image: nginx:1.27'))).toEqual(['key:image', 'punct::', 'string:nginx:1.27']);
    expect(classes(highlightYamlLine('# note'))).toEqual(['comment:# note']);
  });
  it('marks JSON keys and values', () => {
    expect(classes(highlightJsonLine('  "a": "x", "n": -1.5e3, "b": null'))).toEqual([
      'key:"a"',
      'punct::',
      'string:"x"',
      'punct:,',
      'key:"n"',
      'punct::',
      'number:-1.5e3',
      'punct:,',
      'key:"b"',
      'punct::',
      'literal:null',
    ]);
  });
});
