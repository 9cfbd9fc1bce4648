import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { tapOpening, warmForOpening } from '../../src/mcp/stdio-opening.js';

const line = (message: object) => JSON.stringify({ jsonrpc: '2.0', ...message });
const init = (capabilities: object) =>
  line({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'c', version: '1' } } });

describe('warmForOpening: what serve over stdio starts from the client opening request', () => {
  it.each([
    ['initialize asking for nothing', init({}), 'legacy'],
    ['initialize with only experimental capabilities', init({ experimental: { x: {} } }), 'legacy'],
    ['initialize declaring roots', init({ roots: {} }), 'own'],
    ['initialize declaring sampling', init({ sampling: {} }), 'own'],
    ['initialize declaring elicitation', init({ elicitation: { form: {} } }), 'own'],
    ['initialize without params', line({ id: 1, method: 'initialize' }), 'legacy'],
    ['server/discover', line({ id: 1, method: 'server/discover', params: {} }), 'modern'],
    [
      'an enveloped 2026 request',
      line({ id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }),
      'modern',
    ],
    ['a ping first', line({ id: 1, method: 'ping' }), undefined],
    ['a notification', line({ method: 'notifications/initialized' }), undefined],
    ['not JSON', 'hello', undefined],
    ['a JSON array', '[1,2]', undefined],
    ['nothing (the input ended)', undefined, undefined],
  ])('%s', (_what, opening, expected) => {
    expect(warmForOpening(opening)).toBe(expected);
  });
});

describe('tapOpening', () => {
  it('reads the first line across chunks, and the copy serve reads has every byte in order', async () => {
    const source = new PassThrough();
    const { copy, opening } = tapOpening(source);
    let copied = '';
    copy.on('data', (d: Buffer) => (copied += d.toString('utf8')));
    source.write('{"id":1,"met');
    source.write('hod":"ping"}\n{"id":2');
    source.write(',"method":"ping"}\n');
    expect(await opening).toBe('{"id":1,"method":"ping"}');
    await new Promise((resolve) => setImmediate(resolve));
    expect(copied).toBe('{"id":1,"method":"ping"}\n{"id":2,"method":"ping"}\n');
  });

  it('skips blank lines, as the transport does, and joins a character split across chunks', async () => {
    const source = new PassThrough();
    const { opening } = tapOpening(source);
    const bytes = Buffer.from('\n  \n{"id":1,"method":"ping","params":{"n":"é"}}\n');
    const split = bytes.indexOf(Buffer.from('é')) + 1;
    source.write(bytes.subarray(0, split));
    source.write(bytes.subarray(split));
    expect(await opening).toBe('{"id":1,"method":"ping","params":{"n":"é"}}');
  });

  it('says nothing when the input ends without a line, or the line is past 1 MB', async () => {
    const ended = new PassThrough();
    const first = tapOpening(ended).opening;
    ended.end('{"id":1');
    expect(await first).toBeUndefined();
    const long = new PassThrough();
    const second = tapOpening(long).opening;
    long.write('x'.repeat(1024 * 1024 + 1));
    expect(await second).toBeUndefined();
  });
});
