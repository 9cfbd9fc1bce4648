import { describe, expect, it } from 'vitest';
import { httpSnippet, stdioSnippet, viewUrl } from '../../src/tools/view/client-snippets.js';
import { variablesOfView } from '../../src/tools/view/install.js';

describe('view install over stdio: each client gets the variables the view needs, in its own way', () => {
  const args = ['serve', '--view', 'r', '--config', '/p/my config.yaml'];
  it.each([
    ['claude', { GH_TOKEN: '<the value of GH_TOKEN>' }, ['GH_TOKEN'], 'mcpServers'],
    ['cursor', { GH_TOKEN: '${env:GH_TOKEN}' }, [], 'mcpServers'],
    ['vscode', { GH_TOKEN: '${env:GH_TOKEN}' }, [], 'servers'],
    ['claude-code', { GH_TOKEN: '${GH_TOKEN}' }, [], 'mcpServers'],
    ['mcporter', { GH_TOKEN: '${GH_TOKEN}' }, [], 'mcpServers'],
  ] as const)('%s', (client, env, fillIn, top) => {
    const out = stdioSnippet(client, 'mcpkit-r', 'mcpkit', args, ['GH_TOKEN']);
    expect((out.snippet[top] as Record<string, { env: unknown; args: unknown }>)['mcpkit-r']).toMatchObject({ command: 'mcpkit', args, env });
    expect(out.fill_in).toEqual(fillIn);
  });

  it.each([
    ['claude-code', "claude mcp add --scope project -e 'GH_TOKEN=${GH_TOKEN}' mcpkit-r -- mcpkit serve --view r --config '/p/my config.yaml'"],
    [
      'mcporter',
      "mcporter config add mcpkit-r --command mcpkit --arg serve --arg --view --arg r --arg --config --arg '/p/my config.yaml' --env 'GH_TOKEN=${GH_TOKEN}'",
    ],
  ] as const)('%s also gives its own add line, quoting what the shell would split and keeping ${NAME} unexpanded', (client, line) => {
    expect(stdioSnippet(client, 'mcpkit-r', 'mcpkit', args, ['GH_TOKEN']).command_line).toBe(line);
  });

  it('no variables: no env at all', () => {
    expect(stdioSnippet('claude', 'k', 'mcpkit', [], []).snippet).toEqual({ mcpServers: { k: { command: 'mcpkit', args: [] } } });
  });
});

describe('view install over HTTP: the URL of the view and one token variable', () => {
  const url = 'https://gw.example.com/view/r/mcp';
  it.each([
    [
      'claude',
      {
        mcpServers: {
          k: {
            command: 'npx',
            args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${MCPKIT_AUTH_HEADER}'],
            env: { MCPKIT_AUTH_HEADER: 'Bearer <the value of T>' },
          },
        },
      },
      ['T'],
    ],
    ['cursor', { mcpServers: { k: { url, headers: { Authorization: 'Bearer ${env:T}' } } } }, []],
    ['vscode', { servers: { k: { type: 'http', url, headers: { Authorization: 'Bearer ${env:T}' } } } }, []],
    ['claude-code', { mcpServers: { k: { type: 'http', url, headers: { Authorization: 'Bearer ${T}' } } } }, []],
    ['mcporter', { mcpServers: { k: { baseUrl: url, headers: { Authorization: 'Bearer ${T}' } } } }, []],
  ] as const)('%s', (client, snippet, fillIn) => {
    const out = httpSnippet(client, 'k', url, 'T');
    expect(out.snippet).toEqual(snippet);
    expect(out.fill_in).toEqual(fillIn);
    expect(JSON.stringify(out)).not.toMatch(/GH_TOKEN|ADMIN/);
  });

  it('claude-code and mcporter add lines keep ${T} for the client to expand', () => {
    expect(httpSnippet('claude-code', 'k', url, 'T').command_line).toBe(
      "claude mcp add --scope project --transport http k https://gw.example.com/view/r/mcp --header 'Authorization: Bearer ${T}'",
    );
    expect(httpSnippet('mcporter', 'k', url, 'T').command_line).toBe(
      "mcporter config add k --url https://gw.example.com/view/r/mcp --header 'Authorization=Bearer ${T}'",
    );
  });

  it.each([
    ['https://gw.example.com', 'r', 'https://gw.example.com/view/r/mcp'],
    ['https://gw.example.com/', 'r', 'https://gw.example.com/view/r/mcp'],
    ['https://gw.example.com/team-a', 'r', 'https://gw.example.com/team-a/view/r/mcp'],
    ['https://gw.example.com/view/r/mcp', 'r', 'https://gw.example.com/view/r/mcp'],
    ['http://127.0.0.1:8000', 'a b', 'http://127.0.0.1:8000/view/a%20b/mcp'],
  ])('%s for view %s is %s', (base, view, want) => {
    expect(viewUrl(base, view)).toBe(want);
  });
});

describe('the variables a view needs over stdio', () => {
  const config = {
    references: {
      all: ['ADMIN_TOKEN', 'ALICE_TOKEN', 'API_KEY', 'ARANGO_PW', 'AUDIT_DIR', 'GH_TOKEN', 'OTHER'],
      servers: { gh: ['GH_TOKEN'], off: ['API_KEY'], other: ['OTHER'] },
      units: { serve: ['AUDIT_DIR'], 'serve.http': ['ADMIN_TOKEN', 'ALICE_TOKEN'], arango: ['ARANGO_PW'] },
    },
  } as unknown as Parameters<typeof variablesOfView>[0];
  it.each<[string, Record<string, unknown>, string[]]>([
    ['its servers and the serve section, not the HTTP tokens nor another view', { servers: ['gh', 'mem'] }, ['AUDIT_DIR', 'GH_TOKEN']],
    ['not a disabled server', { servers: { gh: {}, off: {} } }, ['AUDIT_DIR', 'GH_TOKEN']],
    ["a group's section when it offers the group", { servers: [], groups: ['arango'] }, ['ARANGO_PW', 'AUDIT_DIR']],
  ])('%s', (_what, view, want) => {
    expect(variablesOfView(config, view, (server) => server === 'off')).toEqual(want);
  });
});
