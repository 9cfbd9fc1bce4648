import { describe, expect, it } from 'vitest';
import { requestPath } from '../../src/mcp/http/http-wire.js';

/** What serve's front door took a request's path to be before requestPath: the URL parser's, trailing slashes cut. */
const byUrl = (target: string | undefined) => new URL(target ?? '/', 'http://localhost').pathname.replace(/\/+$/, '') || '/';
/** A path, or that it was refused (the URL parser throws on "//": no host): the front door's caller answers that. */
const outcome = (path: (target: string | undefined) => string, target: string | undefined) => {
  try {
    return path(target);
  } catch (error) {
    return `throws ${(error as Error).name}`;
  }
};

describe('requestPath', () => {
  // Plain paths (taken as they are) and every form the URL parser rewrites (taken through it).
  const targets: (string | undefined)[] = [
    undefined,
    '/',
    '//',
    '/mcp',
    '/mcp/',
    '/mcp//',
    '/view/one/mcp',
    '/view/one/mcp/',
    '/view/my_view-2/mcp',
    '/views',
    '/views/one',
    '/health',
    '/metrics',
    '/mcp?x=1',
    '/mcp#frag',
    '/view/a%20b/mcp',
    '/view/%2e%2e/mcp',
    '/view/../mcp',
    '/view/./one/mcp',
    '/./mcp',
    '//evil.example/mcp',
    '///mcp',
    '/view//one/mcp',
    '/VIEW/One/MCP',
    '/view/é/mcp',
    '/view/a\\b/mcp',
    '/mcp\t',
    '/ mcp',
    '*',
    'mcp',
    '/.well-known/oauth-protected-resource/mcp',
  ];
  it.each(targets.map((t) => [t]))('%j is the path the URL parser gives', (target) => {
    expect(outcome(requestPath, target)).toBe(outcome(byUrl, target));
  });

  it('takes a plain path as it is, without the URL parser', () => {
    const real = globalThis.URL;
    let built = 0;
    globalThis.URL = class extends real {
      constructor(...args: ConstructorParameters<typeof URL>) {
        super(...args);
        built++;
      }
    } as typeof URL;
    try {
      expect(['/view/one/mcp', '/mcp/', '/health'].map(requestPath)).toEqual(['/view/one/mcp', '/mcp', '/health']);
      expect(built).toBe(0);
      expect(requestPath('/view/../mcp')).toBe('/mcp');
      expect(built).toBe(1);
    } finally {
      globalThis.URL = real;
    }
  });
});
