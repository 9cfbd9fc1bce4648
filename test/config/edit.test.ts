import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, type Document } from 'yaml';
import { describe, expect, it } from 'vitest';
import { editConfig, replaceConfigText } from '../../src/config/edit.js';
import { ToolError } from '../../src/core/errors.js';
import { tempDir } from '../helpers/cli.js';

const COMMENTED = `# Team config: keep this header
mcp_servers:
  # the reference server
  everything:
    command: npx # runs from npm
    args: ["-y", "@modelcontextprotocol/server-everything"]
  memory:
    command: npx
tool_views: {} # none yet
`;

function fixture(text = COMMENTED): string {
  const path = join(tempDir(), 'mcpkit.yaml');
  writeFileSync(path, text);
  return path;
}

async function refused(path: string, mutate: (doc: Document) => unknown): Promise<ToolError> {
  try {
    await editConfig(path, mutate);
  } catch (error) {
    return error as ToolError;
  }
  throw new Error('the edit was accepted');
}

describe('editConfig', () => {
  it('keeps comments and key order through a mutation', async () => {
    const path = fixture();
    const outcome = await editConfig(path, (doc) => {
      doc.setIn(['mcp_servers', 'fs'], doc.createNode({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] }));
      doc.setIn(['mcp_servers', 'everything', 'timeout_ms'], 5000);
      return 'done';
    });
    expect(outcome).toMatchObject({ value: 'done', changed: true });
    const text = readFileSync(path, 'utf8');
    for (const comment of ['# Team config: keep this header', '# the reference server', '# runs from npm', '# none yet']) {
      expect(text).toContain(comment);
    }
    expect(text.indexOf('everything:')).toBeLessThan(text.indexOf('memory:'));
    expect(text.indexOf('memory:')).toBeLessThan(text.indexOf('fs:'));
    expect(text).toContain('timeout_ms: 5000');
  });

  it('creates a missing file in a folder that exists', async () => {
    const path = join(tempDir(), 'config.yaml');
    await editConfig(path, (doc) => doc.setIn(['serve', 'port'], 8000));
    expect(readFileSync(path, 'utf8')).toBe('serve:\n  port: 8000\n');
  });

  it('never creates the folders of a path it was given (a typo would start a second config), unless told to', async () => {
    const root = tempDir();
    const path = join(root, 'nested', 'dir', 'config.yaml');
    await expect(editConfig(path, (doc) => doc.setIn(['serve', 'port'], 8000))).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining(join(root, 'nested', 'dir')),
      hint: expect.stringContaining('mkdir -p'),
    });
    await expect(replaceConfigText(path, 'serve: {}\n', { overwrite: false })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(readdirSync(root)).toEqual([]);
    await editConfig(path, (doc) => doc.setIn(['serve', 'port'], 8000), { createFolder: true });
    expect(readFileSync(path, 'utf8')).toBe('serve:\n  port: 8000\n');
  });

  it.each([
    ['a schema violation', (doc: Document) => doc.setIn(['mcp_servers', 'memory', 'timeout_ms'], 'soon'), 'mcp_servers.memory.timeout_ms'],
    ['a server with neither command nor url', (doc: Document) => doc.setIn(['mcp_servers', 'broken'], doc.createNode({ args: [] })), 'mcp_servers.broken'],
    ['an unknown top-level key', (doc: Document) => doc.set('servers', doc.createNode({})), '(root)'],
    ['a non-mapping document', (doc: Document) => (doc.contents = doc.createNode(['a']) as never), '(root)'],
  ])('refuses %s with the path of the problem and leaves the file byte-identical', async (_name, mutate, path) => {
    const file = fixture();
    const before = readFileSync(file);
    const error = await refused(file, mutate);
    expect(error).toBeInstanceOf(ToolError);
    expect(error.code).toBe('CONFIG_INVALID');
    expect((error.details!.problems as { path: string }[]).map((p) => p.path)).toContain(path);
    expect(error.message).toContain(path);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(join(file, '..')).sort()).toEqual(['mcpkit.yaml']);
  });

  it('passes a ToolError thrown by the mutation through, file untouched', async () => {
    const file = fixture();
    const before = readFileSync(file);
    const error = await refused(file, () => {
      throw new ToolError('NOT_FOUND', 'No server named "x".');
    });
    expect(error.code).toBe('NOT_FOUND');
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('refuses to edit a file that is not valid YAML', async () => {
    const file = fixture('mcp_servers: [oops\n');
    const error = await refused(file, (doc) => doc.setIn(['serve', 'port'], 1));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(/not valid YAML/);
    expect(readFileSync(file, 'utf8')).toBe('mcp_servers: [oops\n');
  });

  it('keeps ${VAR} placeholders as written, even for unset variables', async () => {
    const file = fixture('mcp_servers:\n  gh:\n    url: ${GH_URL_NOT_SET}\n    headers: { Authorization: "Bearer ${GH_TOKEN_NOT_SET}" }\n');
    await editConfig(file, (doc) => doc.setIn(['serve', 'port'], 1));
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('${GH_URL_NOT_SET}');
    expect(text).toContain('Bearer ${GH_TOKEN_NOT_SET}');
  });

  it.each<[string, Record<string, string> | undefined, string | undefined]>([
    ['the variable set right', { REPLICA_ID: 'r1' }, undefined],
    ['no environment given: unset, checked where it is set', undefined, undefined],
    [
      'the variable set wrong',
      { REPLICA_ID: 'R 1' },
      'serve.replica_id: a replica id is 1-32 lower-case letters, digits and dashes (the value of ${REPLICA_ID})',
    ],
  ])('checks a placeholder on the value its variable gives (%s), and writes the placeholder', async (_label, env, problem) => {
    const text = 'serve:\n  replica_id: "${REPLICA_ID}"\n';
    const file = fixture(text);
    const edit = editConfig(file, (doc) => doc.setIn(['serve', 'port'], 1), env ? { env } : {});
    if (problem) {
      await expect(edit).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining(problem) });
      expect(readFileSync(file, 'utf8')).toBe(text);
    } else {
      await edit;
      expect(readFileSync(file, 'utf8')).toBe('serve:\n  replica_id: "${REPLICA_ID}"\n  port: 1\n');
    }
  });

  it('does not rewrite the file when nothing changed', async () => {
    const file = fixture();
    const outcome = await editConfig(file, (doc) => isMap(doc.contents));
    expect(outcome).toMatchObject({ value: true, changed: false });
    expect(readFileSync(file, 'utf8')).toBe(COMMENTED);
  });
});

describe('replaceConfigText', () => {
  it('refuses to overwrite without overwrite: true, and replaces with it', async () => {
    const file = fixture();
    await expect(replaceConfigText(file, 'serve: {}\n', { overwrite: false })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(readFileSync(file, 'utf8')).toBe(COMMENTED);
    await expect(replaceConfigText(file, 'serve: {}\n', { overwrite: true })).resolves.toEqual({ replaced: true });
    expect(readFileSync(file, 'utf8')).toBe('serve: {}\n');
  });
});

describe('editConfig and the file system', () => {
  it('edits a symlinked config where it really is, and keeps the link a link', async () => {
    const dir = tempDir();
    const real = join(dir, 'real.yaml');
    writeFileSync(real, 'mcp_servers: {}\n');
    const link = join(dir, 'link.yaml');
    symlinkSync(real, link);
    const outcome = await editConfig(link, (doc) => doc.setIn(['mcp_servers', 'x'], { command: 'node' }));
    expect(outcome.path).toBe(link);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toContain('x:\n    command: node');
    // A dangling link: the edit creates its target.
    const target = join(dir, 'later.yaml');
    const dangling = join(dir, 'dangling.yaml');
    symlinkSync(target, dangling);
    await editConfig(dangling, (doc) => doc.setIn(['mcp_servers', 'y'], { command: 'node' }));
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toContain('y:');
  });

  it('a folder it may not write is FILE_ACCESS with the path, and the file is unchanged', async () => {
    const dir = tempDir();
    const file = join(dir, 'mcpkit.yaml');
    writeFileSync(file, 'mcp_servers: {}\n');
    // chattr +i stops even root (tests run as root here); where it is not available, skip.
    try {
      execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
    } catch {
      return;
    }
    try {
      const error = await editConfig(file, (doc) => doc.setIn(['mcp_servers', 'x'], { command: 'node' })).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'FILE_ACCESS', message: expect.stringContaining(file) });
    } finally {
      execFileSync('chattr', ['-i', dir]);
    }
    expect(readFileSync(file, 'utf8')).toBe('mcp_servers: {}\n');
  });
});
