import { describe, expect, it } from 'vitest';
import { flavourOf, inputVariable, translateVariables, workspaceOf } from '../../src/config/imports/client-variables.js';
import { importServers } from '../../src/config/imports/import-servers.js';

describe("other clients' variables in mcpkit's words", () => {
  it.each([
    ['/p/.vscode/mcp.json', 'servers', 'vscode'],
    ['/home/u/.config/Code/User/settings.json', 'mcp.servers', 'vscode'],
    ['/p/.cursor/mcp.json', 'mcpServers', 'cursor'],
    ['/home/u/.cursor/mcp.json', 'mcpServers', 'cursor'],
    ['/p/.mcp.json', 'mcpServers', 'claude-code'],
    ['/home/u/.claude.json', 'mcpServers', 'claude-code'],
    ['/home/u/.config/Claude/claude_desktop_config.json', 'mcpServers', 'claude-desktop'],
    ['/somewhere/servers.json', 'servers', 'vscode'],
  ] as const)('%s is %s', (file, format, flavour) => expect(flavourOf(file, format)).toBe(flavour));

  it.each([
    ['/p/.vscode/mcp.json', '/p'],
    ['/p/.cursor/mcp.json', '/p'],
    ['/home/u/.config/Code/User/settings.json', '/cwd'],
  ])('the workspace of %s is %s', (file, folder) => expect(workspaceOf(file, '/cwd')).toBe(folder));

  it.each([
    ['gh-token', 'GH_TOKEN'],
    ['apiKey', 'APIKEY'],
    ['1st', 'INPUT_1ST'],
  ])('${input:%s} becomes ${%s}', (id, variable) => expect(inputVariable(id)).toBe(variable));

  const vscode = { flavour: 'vscode' as const, workspaceFolder: '/p', home: '/home/u', inputs: new Map([['gh-token', 'GitHub token']]) };
  it.each([
    [{ args: ['${workspaceFolder}/docs', '${env:HOME}/x'] }, { args: ['/p/docs', '${HOME}/x'] }],
    [{ headers: { Authorization: 'Bearer ${input:gh-token}' } }, { headers: { Authorization: 'Bearer ${GH_TOKEN}' } }],
    [{ cwd: '${userHome}/${workspaceFolderBasename}' }, { cwd: '/home/u/p' }],
    [{ env: { A: 'plain', B: '${env:B_TOKEN}' } }, { env: { A: 'plain', B: '${B_TOKEN}' } }],
  ])('vscode %j', (entry, expected) => {
    const out = translateVariables(entry, vscode);
    expect(out).toMatchObject({ entry: expected });
  });

  it.each(['claude-code', 'claude-desktop'] as const)("%s's ${NAME} stays mcpkit's, its ${file:} and ${keyring:} stay text (never read)", (flavour) => {
    const entry = { args: ['${HOME}', '${file:/etc/shadow}'], env: { K: 'x${keyring:GH}', E: '$${file:a}' } };
    expect(translateVariables(entry, { ...vscode, flavour })).toEqual({
      entry: { args: ['${HOME}', '$${file:/etc/shadow}'], env: { K: 'x$${keyring:GH}', E: '$${file:a}' } },
      asked: [],
    });
  });

  it('names what VS Code would have asked for, and skips what only it can fill in', () => {
    expect(translateVariables({ url: 'https://x', headers: { A: '${input:gh-token}' } }, vscode)).toEqual({
      entry: { url: 'https://x', headers: { A: '${GH_TOKEN}' } },
      asked: [{ variable: 'GH_TOKEN', input: 'gh-token', description: 'GitHub token' }],
    });
    expect(translateVariables({ args: ['${command:pickFile}'] }, vscode)).toEqual({ skip: 'it uses ${command:pickFile}, which only VS Code can fill in' });
    expect(translateVariables({ args: ['${input:x}'] }, { ...vscode, flavour: 'cursor' })).toEqual({
      skip: 'it uses ${input:x}, which only Cursor can fill in',
    });
  });

  it("Claude Code's ${NAME} and ${NAME:-default} are mcpkit's own: kept", () => {
    const entry = { args: ['${ROOT:-/srv}'], env: { T: '${TOKEN}' } };
    expect(translateVariables(entry, { flavour: 'claude-code', workspaceFolder: '/p', home: '/h' })).toEqual({ entry, asked: [] });
  });

  it("~/.claude.json: the user's servers and the project's of the folder it runs in, the project's winning", () => {
    const doc = {
      mcpServers: { shared: { command: 'a' }, both: { command: 'user' } },
      projects: { '/p': { mcpServers: { both: { command: 'project' }, mine: { command: 'b' } } }, '/q': { mcpServers: { other: { command: 'c' } } } },
    };
    expect(importServers(doc, { project: '/p' }).servers).toEqual([
      { name: 'shared', entry: { command: 'a' } },
      { name: 'both', entry: { command: 'project' } },
      { name: 'mine', entry: { command: 'b' } },
    ]);
  });
});
