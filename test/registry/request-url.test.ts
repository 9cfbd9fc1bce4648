import { describe, expect, it } from 'vitest';
import { requestUrl } from '../../src/registry/client.js';

describe('requestUrl builds request URLs with the URL API', () => {
  it.each([
    ['http://host', '/v0.1/servers', 'http://host/v0.1/servers'],
    ['http://host/', '/v0.1/servers?limit=30', 'http://host/v0.1/servers?limit=30'],
    ['http://host/registry/', '/v0.1/servers', 'http://host/registry/v0.1/servers'],
    ['http://host/reg?key=X', '/v0.1/servers?limit=30', 'http://host/reg/v0.1/servers?key=X&limit=30'],
    ['http://host/reg?key=X', '/v0.1/servers/io.github%2Fa/versions/latest', 'http://host/reg/v0.1/servers/io.github%2Fa/versions/latest?key=X'],
  ])('%s + %s', (base, path, url) => {
    expect(requestUrl(base, path)).toBe(url);
  });
});
