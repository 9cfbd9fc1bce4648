import { describe, expect, it } from 'vitest';
import { installation, localName, reference, variableForHeader, type ServerJson } from '../../src/registry/install.js';

const npm: ServerJson = {
  name: 'io.github.acme/weather-mcp',
  description: 'Weather',
  version: '1.2.0',
  packages: [
    {
      registryType: 'npm',
      identifier: '@acme/weather',
      version: '1.2.0',
      transport: { type: 'stdio' },
      environmentVariables: [
        { name: 'WEATHER_KEY', description: 'API key', isRequired: true, isSecret: true },
        { name: 'UNITS', default: 'metric' },
        { name: 'DEBUG' },
      ],
    },
    { registryType: 'pypi', identifier: 'acme-weather', version: '1.2.0', transport: { type: 'stdio' } },
    {
      registryType: 'oci',
      identifier: 'ghcr.io/acme/weather',
      version: '1.2.0',
      transport: { type: 'stdio' },
      environmentVariables: [{ name: 'WEATHER_KEY', isRequired: true }],
    },
  ],
  remotes: [{ type: 'streamable-http', url: 'https://weather.example/mcp', headers: [{ name: 'X-Api-Key', isRequired: true, isSecret: true }] }],
};

describe('installation', () => {
  it.each([
    [
      'npm by default',
      undefined,
      { command: 'npx', args: ['-y', '@acme/weather@1.2.0'], env: { WEATHER_KEY: '${WEATHER_KEY}', UNITS: '${UNITS:-metric}', DEBUG: '${DEBUG:-}' } },
    ],
    ['pypi with uvx', 'pypi', { command: 'uvx', args: ['acme-weather==1.2.0'] }],
    [
      'oci with docker, passing variables through',
      'oci',
      { command: 'docker', args: ['run', '-i', '--rm', '-e', 'WEATHER_KEY', 'ghcr.io/acme/weather:1.2.0'], env: { WEATHER_KEY: '${WEATHER_KEY}' } },
    ],
    ['a remote by url, headers from variables', 'remote', { url: 'https://weather.example/mcp', transport: 'http', headers: { 'X-Api-Key': '${X_API_KEY}' } }],
  ] as const)('%s', (_label, kind, expected) => {
    const plan = installation(npm, kind);
    expect(plan.entry).toEqual({ description: 'Weather', ...expected });
  });

  it('lists declared variables with required and secret marks', () => {
    expect(installation(npm).variables).toEqual([
      { name: 'WEATHER_KEY', required: true, secret: true, description: 'API key' },
      { name: 'UNITS', required: false, secret: false },
      { name: 'DEBUG', required: false, secret: false },
    ]);
    expect(installation(npm, 'remote').variables).toEqual([{ name: 'X_API_KEY', required: true, secret: true, header: 'X-Api-Key' }]);
  });

  it.each([
    ['an image with its own tag', { registryType: 'oci', identifier: 'docker.io/acme/w:edge', version: '1' }, ['run', '-i', '--rm', 'docker.io/acme/w:edge']],
    [
      'a registry host with a port',
      { registryType: 'oci', identifier: 'localhost:5000/acme/w', version: '2' },
      ['run', '-i', '--rm', 'localhost:5000/acme/w:2'],
    ],
    ['no version at all', { registryType: 'oci', identifier: 'acme/w' }, ['run', '-i', '--rm', 'acme/w']],
  ])('oci: %s', (_label, pkg, args) => {
    expect(installation({ name: 'x/y', packages: [pkg] }).entry.args).toEqual(args);
  });

  it('fills arguments with values and notes required ones without', () => {
    const plan = installation({
      name: 'x/args',
      packages: [
        {
          registryType: 'npm',
          identifier: 'args-mcp',
          runtimeArguments: [{ type: 'named', name: '--node-options', value: '--max-old-space-size=512' }],
          packageArguments: [
            { type: 'positional', value: '--stdio' },
            { type: 'named', name: '--root', isRequired: true, valueHint: 'path' },
          ],
        },
      ],
    });
    expect(plan.entry.args).toEqual(['-y', '--node-options', '--max-old-space-size=512', 'args-mcp', '--stdio']);
    expect(plan.notes).toEqual(['Required package argument --root has no value: add it to args in the config.']);
  });

  it('refuses a package kind the entry does not have, naming those it has', () => {
    expect(() => installation({ name: 'x/y', packages: [{ registryType: 'pypi', identifier: 'p' }] }, 'npm')).toThrow('x/y has no npm package.');
    expect(() => installation({ name: 'x/none' })).toThrow('has no package or remote mcpkit can run');
  });
});

describe('naming', () => {
  it.each([
    ['io.github.21st-dev/magic-mcp', 'magic-mcp'],
    ['io.github.acme/Weather_MCP', 'Weather_MCP'],
    ['com.example/@scope pkg', 'scope-pkg'],
    ['plain', 'plain'],
  ])('%s -> %s', (name, local) => {
    expect(localName(name)).toBe(local);
  });

  it.each([
    ['X-Api-Key', 'X_API_KEY'],
    ['Authorization', 'AUTHORIZATION'],
  ])('header %s -> %s', (header, variable) => {
    expect(variableForHeader(header)).toBe(variable);
  });

  it.each([
    [{ name: 'A', isRequired: true }, '${A}'],
    [{ name: 'A' }, '${A:-}'],
    [{ name: 'A', default: 'x' }, '${A:-x}'],
    [{ name: 'A', default: 'x', isSecret: true, isRequired: true }, '${A}'],
  ])('reference %j', (input, text) => {
    expect(reference(input)).toBe(text);
  });
});
