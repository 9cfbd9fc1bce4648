import { describe, expect, it } from 'vitest';
import { installation, templatedUrl, unsupportedKinds } from '../../src/registry/install.js';
import { compareVersions, statusOf } from '../../src/registry/status.js';
import { updatedEntry } from '../../src/registry/update-entry.js';

describe('compareVersions', () => {
  it.each([
    ['1.1.0', '1.0.0', 1],
    ['1.0.0', '1.0.0', 0],
    ['1.10.0', '1.9.9', 1],
    ['2.0.0', '2.0.0-beta.1', 1],
    ['2.0.0-beta.2', '2.0.0-beta.1', 1],
    ['v1.2', '1.2.0', 0],
    ['0.9', '1.0.0', -1],
  ])('%s vs %s', (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
  });
});

describe('statusOf', () => {
  it.each([
    [{}, { status: 'active' }],
    [
      { 'io.modelcontextprotocol.registry/official': { status: 'deprecated', statusMessage: 'Use x.', statusChangedAt: '2026-01-01T00:00:00Z' } },
      { status: 'deprecated', message: 'Use x.', changedAt: '2026-01-01T00:00:00Z' },
    ],
    [{ 'io.modelcontextprotocol.registry/official': { status: '' } }, { status: 'active' }],
  ])('%j', (meta, want) => {
    expect(statusOf({ _meta: meta })).toEqual(want);
  });
});

describe('templatedUrl', () => {
  it.each([
    ['a required variable', 'https://{tenant_id}.x.com/mcp', { tenant_id: { isRequired: true } }, {}, 'https://${TENANT_ID}.x.com/mcp', ['TENANT_ID']],
    ['a default', 'https://x.com/{region}/mcp', { region: { default: 'eu' } }, {}, 'https://x.com/${REGION:-eu}/mcp', ['REGION']],
    ['a value given', 'https://{tenant_id}.x.com/mcp', {}, { tenant_id: 'acme' }, 'https://acme.x.com/mcp', []],
    ['a URL that starts with one', '{baseUrl}/mcp', { baseUrl: {} }, {}, '${BASEURL}/mcp', ['BASEURL']],
    ['no variables', 'https://x.com/mcp', undefined, {}, 'https://x.com/mcp', []],
  ])('%s', (_what, url, declared, given, want, variables) => {
    const out = templatedUrl(url, declared, given);
    expect(out.url).toBe(want);
    expect(out.variables.map((v) => v.name)).toEqual(variables);
  });
});

describe('installation of the newer kinds', () => {
  it('nuget runs with dnx --yes, the tool arguments after --', () => {
    const plan = installation({
      name: 'io.github.x/dotnet',
      packages: [{ registryType: 'nuget', identifier: 'Acme.Mcp', version: '2.1.0', packageArguments: [{ type: 'positional', value: '--stdio' }] }],
    });
    expect(plan.entry).toMatchObject({ command: 'dnx', args: ['--yes', 'Acme.Mcp@2.1.0', '--', '--stdio'] });
  });

  it('a server offering only what mcpkit does not run says which', () => {
    const server = { name: 'io.github.x/crate', packages: [{ registryType: 'cargo', identifier: 'x-mcp' }] };
    expect(unsupportedKinds(server)).toEqual(['cargo']);
    expect(() => installation(server)).toThrow(/no package or remote mcpkit can run/);
  });
});

describe('updatedEntry', () => {
  it("moves the launch on and keeps what was set: variable values, new variables, filters, the person's description", () => {
    const old = {
      description: 'mine',
      command: 'npx',
      args: ['-y', 'pkg@1.0.0'],
      env: { API_KEY: '${MY_KEY}' },
      filter: [{ exclude: 'danger_*' }],
      timeout_ms: 5000,
      registry: { source: 'official', name: 'io.x/pkg', version: '1.0.0', package: 'npm' },
    };
    const fresh = { description: 'theirs', command: 'npx', args: ['-y', 'pkg@1.1.0'], env: { API_KEY: '${API_KEY}', REGION: '${REGION:-}' } };
    expect(updatedEntry(old, fresh, { source: 'official', name: 'io.x/pkg', version: '1.1.0', package: 'npm' })).toEqual({
      description: 'mine',
      command: 'npx',
      args: ['-y', 'pkg@1.1.0'],
      env: { API_KEY: '${MY_KEY}', REGION: '${REGION:-}' },
      filter: [{ exclude: 'danger_*' }],
      timeout_ms: 5000,
      registry: { source: 'official', name: 'io.x/pkg', version: '1.1.0', package: 'npm' },
    });
  });

  it('a package that became a remote loses its command', () => {
    expect(updatedEntry({ command: 'npx', args: ['x'] }, { url: 'https://x.com/mcp' }, { source: 's', name: 'n' })).toEqual({
      url: 'https://x.com/mcp',
      registry: { source: 's', name: 'n' },
    });
  });
});
