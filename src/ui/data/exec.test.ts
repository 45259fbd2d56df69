import { describe, expect, it } from 'vitest';
import { execPath, execProtocols, execQuery, frame, parseExitStatus, resizeFrame } from './exec.js';

describe('exec over WebSocket', () => {
  const t = { namespace: 'ns', pod: 'p', container: 'c', command: ['sh', '-c', 'echo hi'], tty: false };

  it('asks with PodExecOptions, one command item per argv entry', () => {
    expect(execPath(t)).toBe('/api/v1/namespaces/ns/pods/p/exec');
    expect(execQuery(t)).toEqual({ container: 'c', command: ['sh', '-c', 'echo hi'], stdin: 'true', stdout: 'true', stderr: 'true', tty: undefined });
    expect(execQuery({ ...t, tty: true })).toMatchObject({ tty: 'true', stderr: undefined });
  });

  it('offers v5 first, v4 as the fallback, the token as the bearer subprotocol', () => {
    const p = execProtocols('abc');
    expect(p.slice(0, 2)).toEqual(['v5.channel.k8s.io', 'v4.channel.k8s.io']);
    expect(p[2]).toBe('base64url.bearer.authorization.k8s.io.YWJj');
    expect(execProtocols(undefined)).toHaveLength(2);
  });

  it('frames stdin and resize as upstream', () => {
    expect([...frame(0, 'ls\n')]).toEqual([0, 0x6c, 0x73, 0x0a]);
    expect(new TextDecoder().decode(resizeFrame(80, 24).subarray(1))).toBe('{"Width":80,"Height":24}\n');
    expect(resizeFrame(80, 24)[0]).toBe(4);
  });

  it('reads the exit status from the error channel', () => {
    expect(parseExitStatus('{"metadata":{},"status":"Success"}')).toEqual({ code: 0 });
    expect(
      parseExitStatus(
        JSON.stringify({ metadata: {}, status: 'Failure', message: 'command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '3' }] } }),
      ),
    ).toMatchObject({ code: 3 });
    expect(parseExitStatus(JSON.stringify({ status: 'Failure', message: 'container not found ("x")' }))).toEqual({ message: 'container not found ("x")' });
    expect(parseExitStatus('plain text failure')).toEqual({ message: 'plain text failure' });
  });
});
