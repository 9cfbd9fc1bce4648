import { describe, expect, it } from 'vitest';
import { clientSnippet } from '../../src/tools/view/read.js';

describe('view install: each client gets the variables the config needs, in its own way', () => {
  const args = ['serve', '--view', 'r', '--config', '/p/my config.yaml'];
  it.each([
    ['claude', { GH_TOKEN: '<the value of GH_TOKEN>' }, ['GH_TOKEN'], 'mcpServers'],
    ['cursor', { GH_TOKEN: '<the value of GH_TOKEN>' }, ['GH_TOKEN'], 'mcpServers'],
    ['vscode', { GH_TOKEN: '${env:GH_TOKEN}' }, [], 'servers'],
    ['claude-code', { GH_TOKEN: '${GH_TOKEN}' }, [], 'mcpServers'],
  ] as const)('%s', (client, env, fillIn, top) => {
    const out = clientSnippet(client, 'mcpkit-r', 'mcpkit', args, ['GH_TOKEN']);
    expect((out.snippet[top] as Record<string, { env: unknown; args: unknown }>)['mcpkit-r']).toMatchObject({ command: 'mcpkit', args, env });
    expect(out.fill_in).toEqual(fillIn);
  });

  it('claude-code also gives the claude mcp add line, quoting what the shell would split and keeping ${NAME} unexpanded', () => {
    expect(clientSnippet('claude-code', 'mcpkit-r', 'mcpkit', args, ['GH_TOKEN']).command_line).toBe(
      "claude mcp add --scope project -e 'GH_TOKEN=${GH_TOKEN}' mcpkit-r -- mcpkit serve --view r --config '/p/my config.yaml'",
    );
  });

  it('no variables: no env at all', () => {
    expect(clientSnippet('claude', 'k', 'mcpkit', [], []).snippet).toEqual({ mcpServers: { k: { command: 'mcpkit', args: [] } } });
  });
});
