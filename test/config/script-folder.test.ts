import { describe, expect, it } from 'vitest';
import { isRelativeScript, keepScriptFolder, scriptFolderOf } from '../../src/config/imports/script-folder.js';

describe('an imported entry that runs a relative script keeps the folder its client ran it in', () => {
  it.each([
    ['server.js', true],
    ['./bin/server', true],
    ['../tools/x', true],
    ['src/main.py', true],
    ['dist/index.mjs', true],
    ['run.sh', true],
    ['/abs/server.js', false],
    ['~/server.js', false],
    ['-y', false],
    ['--port=3000', false],
    ['@modelcontextprotocol/server-filesystem', false],
    ['mcp-server-fetch', false],
    ['pkg@1.2.3', false],
    ['${workspaceFolder}/x.js', false],
    ['https://example.com/x.js', false],
    ['C:server.js', false],
    ['', false],
  ])('%s: relative script %s', (arg, want) => {
    expect(isRelativeScript(arg)).toBe(want);
  });

  it.each([
    ['/p/.vscode/mcp.json', 'vscode', '/p'],
    ['/p/.cursor/mcp.json', 'cursor', '/p'],
    ['/p/.mcp.json', 'claude-code', '/p'],
    ['/home/u/.claude.json', 'claude-code', undefined],
    ['/home/u/claude_desktop_config.json', 'claude-desktop', undefined],
  ] as const)('%s (%s) runs servers in %s', (file, flavour, want) => {
    expect(scriptFolderOf(file, flavour, '/p')).toBe(want);
  });

  it.each([
    [{ command: 'node', args: ['server.js'] }, '/p', { command: 'node', args: ['server.js'], cwd: '/p' }],
    [{ command: './server' }, '/p', { command: './server', cwd: '/p' }],
    [{ command: 'node', args: ['server.js'], cwd: '/elsewhere' }, '/p', { command: 'node', args: ['server.js'], cwd: '/elsewhere' }],
    [{ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }, '/p', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }],
    [{ command: 'node', args: ['server.js'] }, undefined, { command: 'node', args: ['server.js'] }],
    [{ url: 'https://x.example/mcp' }, '/p', { url: 'https://x.example/mcp' }],
  ])('%j in %s becomes %j', (entry, folder, want) => {
    expect(keepScriptFolder(entry, folder)).toEqual(want);
  });
});
