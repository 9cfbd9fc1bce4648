import { describe, expect, it } from 'vitest';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import { modernParams } from '../../../src/proxy/eras/era.js';
import { relayedCapabilities } from '../../../src/proxy/upstream/upstream-connection.js';

/** Which of a client's roots reach a server: a local client's always, a remote one's with `roots: forward` only. */
describe('relayedCapabilities', () => {
  const all = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } };
  it.each<[string, { remote?: boolean } | undefined, { roots?: 'forward' }, string[]]>([
    ['a stdio client', {}, {}, ['elicitation', 'roots', 'sampling']],
    ['a remote client', { remote: true }, {}, ['elicitation', 'sampling']],
    ['a remote client, roots: forward', { remote: true }, { roots: 'forward' }, ['elicitation', 'roots', 'sampling']],
    ['no downstream client (shared connections)', undefined, { roots: 'forward' }, []],
  ])('%s', (_what, client, config, offered) => {
    const downstream = client && { capabilities: all, ...client };
    expect(Object.keys(relayedCapabilities(downstream, config)).sort()).toEqual(offered);
  });
});

describe('modernParams: a 2026-07-28 request passed on', () => {
  const modern = (remote: boolean) => ({
    meta: { [CLIENT_CAPABILITIES_META_KEY]: { roots: {}, sampling: {} }, traceparent: 't' },
    inputResponses: { a: { roots: [{ uri: 'file:///' }] }, b: { action: 'accept', content: {} }, c: { result: { roots: [] } } },
    requestState: 's',
    ...(remote ? { remote: true } : {}),
  });
  it('from a remote client: no roots capability, no roots answers, the rest as it was', () => {
    const params = modernParams(modern(true));
    expect(params._meta[CLIENT_CAPABILITIES_META_KEY]).toEqual({ sampling: {} });
    expect(params._meta.traceparent).toBe('t');
    expect(params.inputResponses).toEqual({ b: { action: 'accept', content: {} } });
    expect(params.requestState).toBe('s');
  });
  it('from a remote client to a roots: forward server, and from a local one: as it was', () => {
    for (const params of [modernParams(modern(true), { roots: 'forward' }), modernParams(modern(false))]) {
      expect(params._meta[CLIENT_CAPABILITIES_META_KEY]).toEqual({ roots: {}, sampling: {} });
      expect(Object.keys(params.inputResponses as object)).toEqual(['a', 'b', 'c']);
    }
  });
});
