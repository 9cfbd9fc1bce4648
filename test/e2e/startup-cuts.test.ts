import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir, type RunResult } from '../helpers/cli.js';
import { bundledSources, staticGraph } from '../helpers/bundle-graph.js';

/** `mcpkit ARGS` on a Node that reports `nodeVersion` (as process.versions.node) to the CLI. */
function runOnNode(nodeVersion: string, args: string[]): Promise<RunResult> {
  const pretend = `data:text/javascript,Object.defineProperty(process.versions,'node',{value:${JSON.stringify(nodeVersion)}})`;
  return runCli(args, { nodeArgs: ['--import', pretend] });
}

/** The text of the built module holding oclif's plugin loader. */
function bundledLoader(files: readonly string[]): string {
  const texts = files.map((f) => readFileSync(f, 'utf8')).filter((t) => t.includes('var PluginLoader='));
  expect(texts).toHaveLength(1);
  return texts[0]!;
}

describe("what every command's start-up loads", () => {
  it('oclif checks its Node range without semver: no semver module is bundled where the CLI starts', () => {
    const sources = bundledSources(staticGraph(join(ROOT, 'dist/cli/main.js')));
    expect(sources.some((s) => s.includes('@oclif/core/lib/'))).toBe(true);
    expect(sources.filter((s) => /node_modules\/semver\//.test(s))).toEqual([]);
  });

  it("oclif's plugin loader compares plain plugin names as strings, not as compiled globs", () => {
    const loader = bundledLoader(staticGraph(join(ROOT, 'dist/cli/main.js')));
    expect(loader).toMatch(/\?p===w:\(0,minimatch_1\.minimatch\)\(p,w\)/);
  });

  it('a built module that never names require does not import node:module to make one', () => {
    const graph = staticGraph(join(ROOT, 'dist/commands/config/path.js'));
    const texts = graph.map((f) => readFileSync(f, 'utf8'));
    expect(texts.filter((t) => !/\brequire\b/.test(t)).length).toBeGreaterThan(10);
    for (const text of texts) expect(text.includes('__mcpkitCreateRequire')).toBe(/\brequire\b/.test(text.replace(/^.*\n/, '')));
  });

  it('oclif requires tinyglobby, ejs and cli-spinners only when first used', () => {
    const loader = bundledLoader(staticGraph(join(ROOT, 'dist/cli/main.js')));
    expect(loader).toMatch(/get glob\(\)\{return require_\w+\(\)\.glob\}/);
    expect(loader).toMatch(/get default\(\)\{return __importDefault\(require_ejs\(\)\)\.default\}/);
    expect(loader).toMatch(/get default\(\)\{return __importDefault\(require_cli_spinners\(\)\)\.default\}/);
  });

  it('a search worker loads one file of only what a search needs: no shared chunk, no YAML', () => {
    const worker = join(ROOT, 'dist/retrieve/search-worker.cjs');
    expect(readFileSync(worker, 'utf8')).not.toMatch(/require\("\.{1,2}\//);
    const sources = bundledSources([worker]);
    expect(sources.some((s) => s.endsWith('src/retrieve/search-chunks.ts'))).toBe(true);
    expect(sources.filter((s) => /node_modules\/(yaml|zod)\//.test(s))).toEqual([]);
  });

  it("still warns, in oclif's words, on a Node older than oclif's range, and runs the command", async () => {
    const old = await runOnNode('16.20.0', ['--version']);
    expect(old.code).toBe(0);
    expect(old.stdout).toMatch(/^mcpkit\/\d+\.\d+\.\d+ /);
    expect(old.stderr).toContain('Warning: Node version must be >=18.0.0 to use this CLI. Current node version: 16.20.0');
  });

  it('says nothing on this Node, which is within the range', async () => {
    const run = await runOnNode(process.versions.node, ['--version']);
    expect([run.code, run.stderr]).toEqual([0, '']);
  });

  it('runs as built whatever NODE_ENV says: oclif loads no TypeScript to look for sources', async () => {
    // Reports at exit which of the process's CommonJS modules came from typescript, tsx or ts-node.
    const report = `data:text/javascript,import{createRequire}from'node:module';process.on('exit',()=>{const c=createRequire(process.cwd()+'/').cache;process.stderr.write('LOADED['+Object.keys(c).filter(k=>/node_modules\\/(typescript|tsx|ts-node)\\//.test(k)).length+']')})`;
    const config = join(tempDir(), 'mcpkit.yaml');
    writeFileSync(config, 'mcp_servers: {}\n');
    for (const nodeEnv of ['development', 'test']) {
      const run = await runCli(['server', 'list'], { nodeArgs: ['--import', report], env: cleanEnv({ NODE_ENV: nodeEnv, MCPKIT_CONFIG: config }) });
      expect([nodeEnv, run.code, run.stderr.match(/LOADED\[\d+\]/)?.[0]]).toEqual([nodeEnv, 0, 'LOADED[0]']);
    }
  });
});
