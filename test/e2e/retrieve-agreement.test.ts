import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCommand, tempDir } from '../helpers/cli.js';

/**
 * `retrieve search` finds what ripgrep finds (git grep where rg is not installed) on a
 * tree with files over 1 MiB, a line longer than what is shown, nested .gitignore files that
 * exclude and re-include, binary files and dotfiles: "no match" must mean there is none.
 */
// MCPKIT_AGREEMENT_REFERENCE=git compares with git grep even where rg is installed.
const hasRg = process.env.MCPKIT_AGREEMENT_REFERENCE !== 'git' && spawnSync('rg', ['--version']).status === 0;
let tree: string;

function write(rel: string, content: string | Buffer): void {
  mkdirSync(join(tree, rel, '..'), { recursive: true });
  writeFileSync(join(tree, rel), content);
}

beforeAll(() => {
  tree = tempDir('mcpkit-agree-');
  const filler = (bytes: number) => `${'filler text without the word\n'.repeat(Math.ceil(bytes / 29))}`;
  write('src/app.ts', 'const needle = 1;\n// Needle in caps\nneedle(); neeedle(\n');
  write('src/deep/nested/mod.ts', 'export function needle() {}\n');
  write('big/one-and-a-half.txt', `${filler(1.5 * 1024 * 1024)}needle at the end of a big file\n`);
  write('big/three.txt', `needle at the start\n${filler(3 * 1024 * 1024)}needle( at the end\n`);
  write('big/minified.js', `${'var a=1;'.repeat(40_000)}needle;${'var b=2;'.repeat(40_000)}\n`); // one 640 KB line
  write('.gitignore', 'dist/\n*.log\n!keep.log\n');
  write('dist/out.js', 'needle built\n');
  write('debug.log', 'needle log\n');
  write('keep.log', 'needle kept\n');
  write('sub/.gitignore', '*.tmp\n!wanted.tmp\n');
  write('sub/x.tmp', 'needle tmp\n');
  write('sub/wanted.tmp', 'needle wanted\n');
  write('sub/ok.md', 'Needle and NEEDLE\n');
  write('.hidden/h.txt', 'needle hidden\n');
  write('image.bin', Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2, 3]), Buffer.from('needle\n')]));
  write('crlf.txt', 'first\r\nneedle crlf\r\n');
  execFileSync('git', ['init', '-q'], { cwd: tree });
});

/** path:line of every match, sorted, from rg (or git grep) run in the tree. */
function reference(args: { fixed?: string; regex?: string; ignoreCase?: boolean }): string[] {
  const pattern = args.fixed ?? args.regex!;
  const out = hasRg
    ? spawnSync('rg', ['-n', '--no-heading', ...(args.ignoreCase ? ['-i'] : []), ...(args.fixed ? ['-F'] : []), '-e', pattern, '.'], {
        cwd: tree,
        encoding: 'utf8',
        maxBuffer: 1 << 26,
        stdio: ['ignore', 'pipe', 'pipe'],
      }).stdout
    : spawnSync('git', ['grep', '-n', '-I', '--untracked', '--exclude-standard', ...(args.ignoreCase ? ['-i'] : []), args.fixed ? '-F' : '-E', '-e', pattern], {
        cwd: tree,
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      }).stdout;
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.replace(/^\.\//, '').split(':').slice(0, 2).join(':'))
    .filter((l) => !l.startsWith('.')) // git grep searches dotfiles; rg and mcpkit leave them out (mcpkit: unless --hidden)
    .sort();
}

async function ours(args: string[]): Promise<string[]> {
  const r = await runCommand(['retrieve', 'search', ...args, '--limit', '0', '--json'], { env: cleanEnv({ CODE_ROOT: tree }) });
  expect(r.code, r.stderr).toBe(0);
  const body = JSON.parse(r.stdout) as { result: { matches: { path: string; line: number }[] }; meta: { truncated: boolean } };
  expect(body.meta.truncated).toBe(false);
  return body.result.matches.map((m) => `${m.path.replace(/^code\//, '')}:${m.line}`).sort();
}

describe(`retrieve search agrees with ${hasRg ? 'ripgrep' : 'git grep'}`, () => {
  it.each([
    ['a literal', ['needle'], { fixed: 'needle' }],
    ['a literal with a regex character', ['needle('], { fixed: 'needle(' }],
    ['a literal, ignoring case', ['NEEDLE', '-i'], { fixed: 'NEEDLE', ignoreCase: true }],
    ['a regex', ['ne+dle\\(', '--regex'], { regex: 'ne+dle\\(' }],
  ] as const)('%s', async (_label, args, ref) => {
    const expected = reference(ref);
    expect(expected.length).toBeGreaterThanOrEqual(3);
    expect(expected.some((m) => m.startsWith('big/three.txt:'))).toBe(true); // the reference does search the 3 MiB file...
    expect(await ours([...args])).toEqual(expected); // ...and so do we, and nothing else differs
  });

  it('finds matches past 1 MiB and in a line longer than what is shown', async () => {
    const found = await ours(['needle']);
    const lastLine = Math.ceil((1.5 * 1024 * 1024) / 29) + 1;
    expect(found).toEqual(expect.arrayContaining([`big/one-and-a-half.txt:${lastLine}`, 'big/minified.js:1']));
    expect(found).not.toContain('image.bin:1');
  });
});

/**
 * rg's own flags, compared with rg itself on what a person sees (stdout, byte for byte, and the
 * exit code), on a root that sits below the top of a git work tree whose .gitignore leaves files
 * out of it. Only where rg is installed: git grep has other flags and another output.
 */
const rgInstalled = spawnSync('rg', ['--version']).status === 0;
if (!rgInstalled) console.log('skipped: comparing the rg flags with ripgrep (Debian package "ripgrep" is not installed)');
describe.skipIf(!rgInstalled)('retrieve search takes rg flags and prints what rg prints, on a root inside a git work tree', () => {
  let top: string;
  let root: string;
  beforeAll(() => {
    top = tempDir('mcpkit-agree-rg-');
    root = join(top, 'sub');
    const put = (rel: string, content: string) => {
      mkdirSync(join(top, rel, '..'), { recursive: true });
      writeFileSync(join(top, rel), content);
    };
    execFileSync('git', ['init', '-q'], { cwd: top });
    put('.gitignore', '*.log\nbuild/\nsub/gen/\n'); // above the root: rg honours it, and so must we
    put('sub/.gitignore', '!keep.log\n');
    put('sub/src/app.ts', 'const needle = 1;\nneedles(); // two\nthe Needle\n\n\n\nlast needle line\n');
    put('sub/src/app.test.ts', 'test("needle", () => {});\n');
    put('sub/src/util.py', 'def needle():\n    return "haystack"\n');
    put('sub/docs/guide.md', '# Guide\nA needle in a haystack.\nNothing here.\nneedle-case and needle_case\n');
    put('sub/docs/notes.txt', 'FIXME: needle\nTODO: thread\n');
    put('sub/x.log', 'needle in an ignored log\n');
    put('sub/keep.log', 'needle kept\n');
    put('sub/build/out.ts', 'needle built\n');
    put('sub/gen/made.ts', 'needle generated\n');
    put('sub/main.go', 'package main // needle\n');
    // rg --sort path orders folder by folder: apt/ before apt-transport-https/ (byte-wise whole paths would not).
    put('sub/doc/apt/copyright', 'needle of apt\n');
    put('sub/doc/apt-transport-https/copyright', 'needle of apt-transport-https\n');
    put('sub/doc/apt.txt', 'needle beside\n');
  });

  it.each([
    ['a literal', ['needle']],
    ['-w', ['-w', 'needle']],
    ['-v', ['-v', 'needle']],
    ['-l', ['-l', 'needle']],
    ['-c', ['-c', 'needle']],
    ['-e twice', ['-e', 'TODO', '-e', 'FIXME']],
    ['-t', ['-t', 'ts', 'needle']],
    ['-t twice', ['-t', 'py', '-t', 'go', 'needle']],
    ['-g twice, with !', ['-g', '*.ts', '-g', '!*.test.ts', 'needle']],
    ['-g the other way round', ['-g', '!*.test.ts', '-g', '*.ts', 'needle']],
    ['-g a folder left out', ['-g', '!docs/', 'needle']],
    ['-C with groups', ['-C', '1', 'needle']],
    ['-F and -n', ['-F', '-n', 'needle(']],
    ['-i -w -c', ['-i', '-w', '-c', 'needle']],
    ['a regex', ['needle_?\\w*', '--regex']],
    ['no match', ['absent-from-every-file']],
    ['an unknown type', ['-t', 'typescript', 'needle']], // rg: exit 2, nothing on stdout
    ['a type no file has', ['-t', 'rust', 'needle']], // rg: "No files were searched", exit 2
    ['a glob no file matches', ['-g', '*.nothing', 'needle']],
  ])('%s', async (_label, args) => {
    const rg = spawnSync('rg', ['--sort', 'path', '--no-heading', '-n', ...args.filter((a) => a !== '--regex')], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'], // rg searches its stdin when it is a pipe
    });
    const r = await runCommand(['retrieve', 'search', ...args, '--limit', '0'], { env: cleanEnv({ CODE_ROOT: root, MCPKIT_NO_DAEMON: '1' }) });
    expect(r.code, r.stderr).toBe(rg.status);
    expect(r.stdout.replace(/^code\//gm, '')).toBe(rg.stdout);
    expect(rg.stdout).not.toMatch(/x\.log|build\/|gen\//); // the work tree's .gitignore above the root decides
  });
});

/**
 * rg's line-shaping flags (-A, -B, -C, -o, -m) alone, with the flags that choose lines or what is
 * printed of a file (-c, -l, -w, -i, -v), and every pair of them, compared with rg on stdout byte
 * for byte and the exit code. The corpus has contexts that overlap, adjacent matches, several
 * matches in a line, matches on a file's first and last line (one without a final newline), case
 * variants and the word inside longer words.
 */
const rgMajor = rgInstalled ? Number(/ripgrep (\d+)/.exec(spawnSync('rg', ['--version'], { encoding: 'utf8' }).stdout)?.[1] ?? 0) : 0;
describe.skipIf(!rgInstalled)("retrieve search's -A, -B, -C, -o and -m, alone and in pairs, print what rg prints", () => {
  let root: string;
  beforeAll(() => {
    root = tempDir('mcpkit-agree-shape-');
    const files: Record<string, string> = {
      'adjacent.txt': 'foo\nfoo\nfoo\nbar\nfoo\n',
      'case.txt': 'Foo\nFOO and foo\nfOo\nnone\n',
      'edges.txt': 'foo at the start\nmiddle\nstill middle\nat the end foo', // no final newline
      'overlap.txt': 'foo one\nx\nfoo two\ny\nz\nw\nfoo three\nv\nu\nt\ns\nr\nfoo four\n',
      'plain.txt': 'nothing to find here\n',
      'several.txt': 'foo foo foo\nbar foofoo\nfoo-foo\n',
      'words.txt': 'food\nbuffoon\nfoo_bar\nfoo-bar\n(foo)\nxfoo foo\n',
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  });

  const singles: string[][] = [['-A', '1'], ['-B', '2'], ['-C', '1'], ['-o'], ['-m', '1'], ['-c'], ['-l'], ['-w'], ['-i'], ['-v']];
  const pairs = singles.flatMap((a, i) => singles.slice(i + 1).map((b) => [...a, ...b]));
  const cases: [string, string[]][] = [
    ...[...singles, ...pairs]
      .filter((args) => !(args.includes('-c') && args.includes('-l')))
      .map((args): [string, string[]] => [args.join(' '), [...args, 'foo']]),
    ['-o with several patterns', ['-o', '-e', 'foo', '-e', 'bar']],
    ['-o with a regex that matches empty text', ['-o', '--regex', 'fo*']],
    ['-o -w with a regex', ['-o', '-w', '--regex', 'fo+']],
    ['-B 1 -A 3 -m 2', ['-B', '1', '-A', '3', '-m', '2', 'foo']],
    ['-m 0', ['-m', '0', 'foo']],
  ];

  /** rg before 14 let the last of -C and -A/-B win; rg 14 on (and mcpkit) let -A/-B override -C's side only. */
  function rgArgs(args: string[]): string[] {
    const plain = args.filter((a) => a !== '--regex');
    const c = plain.indexOf('-C');
    if (rgMajor >= 14 || c < 0 || !plain.some((a) => a === '-A' || a === '-B')) return plain;
    const sides = { '-A': plain[c + 1]!, '-B': plain[c + 1]! } as Record<string, string>;
    for (const side of ['-A', '-B']) if (plain.includes(side)) sides[side] = plain[plain.indexOf(side) + 1]!;
    const rest = plain.filter((_, i) => ![c, c + 1].includes(i) && !['-A', '-B'].includes(plain[i]!) && !['-A', '-B'].includes(plain[i - 1]!));
    return ['-A', sides['-A']!, '-B', sides['-B']!, ...rest];
  }

  it.each(cases)('%s', async (_label, args) => {
    const rg = spawnSync('rg', ['--sort', 'path', '--no-heading', '-n', ...rgArgs(args)], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const r = await runCommand(['retrieve', 'search', ...args, '--limit', '0'], { env: cleanEnv({ CODE_ROOT: root, MCPKIT_NO_DAEMON: '1' }) });
    expect(r.code, r.stderr).toBe(rg.status);
    expect(r.stdout.replace(/^code\//gm, '')).toBe(rg.stdout);
  });

  it('prints the same with a limit as with none, where the limit is not reached', async () => {
    const args = ['-C', '1', '-o', '-m', '2', 'foo'];
    const rg = spawnSync('rg', ['--sort', 'path', '--no-heading', '-n', ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const r = await runCommand(['retrieve', 'search', ...args, '--limit', '500'], { env: cleanEnv({ CODE_ROOT: root, MCPKIT_NO_DAEMON: '1' }) });
    expect(r.stdout.replace(/^code\//gm, '')).toBe(rg.stdout);
  });

  it('-B and -A override only their own side of -C, in either order (rg 14 on)', async () => {
    // Two before and one after: lines 4 and 5 touch, so no -- between the groups.
    const expected = [
      'overlap.txt-1-foo one',
      'overlap.txt-2-x',
      'overlap.txt:3:foo two',
      'overlap.txt-4-y',
      'overlap.txt-5-z',
      'overlap.txt-6-w',
      'overlap.txt:7:foo three',
      'overlap.txt-8-v',
      '',
    ];
    for (const order of [
      ['-C', '2', '-A', '1'],
      ['-A', '1', '-C', '2'],
    ]) {
      const r = await runCommand(['retrieve', 'search', ...order, '-g', 'overlap.txt', 'two|three', '--regex'], {
        env: cleanEnv({ CODE_ROOT: root, MCPKIT_NO_DAEMON: '1' }),
      });
      expect(r.stdout.replace(/^code\//gm, '')).toBe(expected.join('\n'));
    }
  });

  it('refuses -c with -l, where rg lets -c win (a choice: over MCP the two answers have different shapes)', async () => {
    const r = await runCommand(['retrieve', 'search', '-c', '-l', 'foo'], { env: cleanEnv({ CODE_ROOT: root, MCPKIT_NO_DAEMON: '1' }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Give one of files_with_matches (-l) and count (-c).');
  });
});
