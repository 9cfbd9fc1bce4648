import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { outputOf, ROOT, tempDir } from '../helpers/cli.js';
import { kit2025, kit2025Installed, kit2025Node, kit2026, kit2026Installed, kit2026Node } from '../helpers/conformance-kit.js';
import { BUNDLE_DIR, bundleName, startable, startableSuite, suiteEntry, type BundledEntry } from '../helpers/upstream-bundles.js';

/**
 * The suite starts the npm reference servers from bundles (test/helpers/upstream-bundles.ts). A
 * bundle must be the package as it is: the same answers to everything a client asks at the start,
 * and the files the package reads beside its code (server-everything's instructions and docs).
 */
async function whatItAnswers(file: string, args: string[]) {
  const client = new Client({ name: 'bundle-check', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [file, ...args], stderr: 'ignore' }));
  try {
    const capabilities = client.getServerCapabilities() ?? {};
    const list = async <T>(has: unknown, get: () => Promise<T>) => (has ? await get() : undefined);
    return {
      server: client.getServerVersion(),
      capabilities,
      instructions: client.getInstructions(),
      tools: await client.listTools(),
      prompts: await list(capabilities.prompts, () => client.listPrompts()),
      resources: await list(capabilities.resources, () => client.listResources()),
      templates: await list(capabilities.resources, () => client.listResourceTemplates()),
    };
  } finally {
    await client.close();
  }
}

const PACKAGES: [BundledEntry, string[]][] = [
  ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', ['stdio']],
  ['node_modules/@modelcontextprotocol/server-memory/dist/index.js', []],
  ['node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', ['<dir>']],
];

describe('the bundled upstream servers', () => {
  it.each(PACKAGES)('%s: the bundle answers as the package does', async (entry, args) => {
    const bundle = startable(entry);
    expect(bundle, 'the global setup made the bundle').toBe(join(BUNDLE_DIR, `${bundleName(entry)}.mjs`));
    const dir = tempDir('mcpkit-test-bundles-');
    const withDir = args.map((a) => (a === '<dir>' ? dir : a));
    const [original, bundled] = await Promise.all([whatItAnswers(join(ROOT, entry), withDir), whatItAnswers(bundle, withDir)]);
    expect(bundled).toEqual(original);
    expect(original.tools.tools.length).toBeGreaterThan(0);
  });

  it("server-everything's bundle reads the files beside the package's code", async () => {
    const bundled = await whatItAnswers(startable('node_modules/@modelcontextprotocol/server-everything/dist/index.js'), ['stdio']);
    expect(bundled.instructions).toContain('Everything Server');
  });

  const kits = [
    [kit2025, kit2025Node, kit2025Installed],
    [kit2026, kit2026Node, kit2026Installed],
  ] as const;
  it.each(kits.filter(([, , installed]) => installed).map(([kit, node]) => [kit, node]))(
    "the conformance suite's bundle (%s) lists the scenarios the suite does",
    async (kit, node) => {
      const original = suiteEntry(kit);
      expect(startableSuite(kit)).not.toBe(original);
      const run = { cwd: tempDir('mcpkit-test-bundles-'), env: { ...process.env, NO_COLOR: '1' } };
      const [listed, listedBundled] = await Promise.all([outputOf(node, [original, 'list'], run), outputOf(node, [startableSuite(kit), 'list'], run)]);
      expect(listedBundled).toBe(listed);
      expect(listed).toMatch(/server-initialize/);
    },
  );
});
