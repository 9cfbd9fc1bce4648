import { describe, expect, it } from 'vitest';
import { resendSafe } from '../../../src/proxy/upstream/resend-safe.js';

const rpc = (method: string, id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params: {} });
const notification = (method: string) => JSON.stringify({ jsonrpc: '2.0', method });

describe('resendSafe: may a request run twice without changing anything on the server?', () => {
  it.each([
    ['initialize', 'POST', rpc('initialize'), true],
    ['server/discover (the 2026 probe)', 'POST', rpc('server/discover'), true],
    ['tools/list', 'POST', rpc('tools/list'), true],
    ['resources/templates/list', 'POST', rpc('resources/templates/list'), true],
    ['ping', 'POST', rpc('ping'), true],
    ['resources/read', 'POST', rpc('resources/read'), true],
    ['prompts/get', 'POST', rpc('prompts/get'), true],
    ['completion/complete', 'POST', rpc('completion/complete'), true],
    ['logging/setLevel', 'POST', rpc('logging/setLevel'), true],
    ['a notification', 'POST', notification('notifications/initialized'), true],
    ['a listing as bytes', 'POST', new TextEncoder().encode(rpc('tools/list')), true],
    ['a batch of listings', 'POST', `[${rpc('tools/list')},${rpc('prompts/list', 2)}]`, true],
    ['the session stream (GET)', 'GET', undefined, true],
    ['the session end (DELETE)', 'DELETE', undefined, true],
    ['no method given (a GET)', undefined, undefined, true],
    ['tools/call', 'POST', rpc('tools/call'), false],
    ['a batch with a tools/call in it', 'POST', `[${rpc('tools/list')},${rpc('tools/call', 2)}]`, false],
    ['an empty batch', 'POST', '[]', false],
    ['resources/subscribe (not on the list)', 'POST', rpc('resources/subscribe'), false],
    ['a method that only ends like a listing word', 'POST', rpc('tools/blacklist'), false],
    ['a request named like a notification, with an id', 'POST', rpc('notifications/cancelled'), false],
    ['an answer to the server’s own request', 'POST', JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }), false],
    ['a body that is not JSON', 'POST', '{"method":"tools/list"', false],
    ['bytes that are not UTF-8', 'POST', new Uint8Array([0xff, 0xfe]), false],
    ['a form (an OAuth token request)', 'POST', new URLSearchParams({ grant_type: 'refresh_token' }), false],
    ['a stream', 'POST', new ReadableStream(), false],
    ['a PUT', 'PUT', rpc('tools/list'), false],
    ['a GET with a body', 'GET', 'x', false],
  ] as const)('%s', (_what, method, body, expected) => {
    expect(resendSafe(method, body)).toBe(expected);
  });
});
