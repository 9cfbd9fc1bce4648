import { createHash, randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { ToolError } from '../core/errors.js';
import { cacheDir, SETTING_DEFAULTS } from '../config/schema/defaults.js';
import type { BundleManifest } from './mcpb-manifest.js';

/**
 * An MCP bundle (`mcpb` package, a zip with manifest.json) fetched, checked and unpacked: only
 * over https (plain http from a loopback address alone), at most `maxBytes`, refused unless its
 * SHA-256 is the registry's `fileSha256` (a bundle that does not match is never unpacked, let
 * alone run), and unpacked into $XDG_CACHE_HOME/mcpkit/bundles/SHA256/, every path inside it
 * (none may climb out). A bundle unpacked before is used again.
 */
export const MAX_BUNDLE_BYTES = 100 * 1024 * 1024;

export interface UnpackedBundle {
  dir: string;
  sha256: string;
  manifest: BundleManifest;
}

export function bundlesDir(env: NodeJS.ProcessEnv): string {
  return join(cacheDir(env, env.HOME ?? homedir()), 'bundles');
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Most files a bundle may hold: a zip of a million empty files is a bomb of another kind. */
export const MAX_BUNDLE_FILES = 20_000;

export async function fetchBundle(
  url: string,
  expectedSha256: string | undefined,
  options: { env: NodeJS.ProcessEnv; signal?: AbortSignal; maxBytes?: number; maxUnpackedBytes?: number },
): Promise<UnpackedBundle> {
  if (!expectedSha256 || !/^[0-9a-f]{64}$/i.test(expectedSha256)) {
    throw new ToolError('INVALID_INPUT', 'The registry gives this bundle no fileSha256 (64 hex digits): mcpkit installs no bundle it cannot check.');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolError('INVALID_INPUT', `The bundle's address "${url}" is not a URL.`);
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && LOOPBACK.has(parsed.hostname))) {
    throw new ToolError(
      'INVALID_INPUT',
      `The bundle is at ${parsed.protocol}//${parsed.host}: mcpkit fetches bundles over https only (plain http from this machine alone).`,
    );
  }
  const want = expectedSha256.toLowerCase();
  const dir = join(bundlesDir(options.env), want);
  const known = await readManifest(dir).catch(() => undefined);
  if (known) return { dir, sha256: want, manifest: known };
  const bytes = await download(parsed, options.maxBytes ?? MAX_BUNDLE_BYTES, options.signal);
  const got = createHash('sha256').update(bytes).digest('hex');
  if (got !== want) {
    throw new ToolError('CONFLICT', `The bundle at ${url} has SHA-256 ${got}, not the ${want} the registry gives: it was not installed, nor unpacked.`, {
      details: { url, expected: want, actual: got },
      hint: 'The file changed after it was published, or was tampered with on the way. Ask its publisher; do not install it by hand.',
    });
  }
  await unpack(bytes, dir, options.maxUnpackedBytes ?? SETTING_DEFAULTS.registry.max_bundle_bytes);
  const manifest = await readManifest(dir).catch((error: Error) => {
    throw new ToolError('INVALID_INPUT', `The bundle has no readable manifest.json: ${error.message}`);
  });
  return { dir, sha256: want, manifest };
}

async function readManifest(dir: string): Promise<BundleManifest> {
  return JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as BundleManifest;
}

async function download(url: URL, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  // No redirects: one could lead to plain http or another host.
  const response = await fetch(url, { redirect: 'error', ...(signal ? { signal } : {}) }).catch((error: Error) => {
    throw new ToolError('UPSTREAM_ERROR', `Could not fetch the bundle at ${url.href}: ${error.message}`);
  });
  if (!response.ok || !response.body) throw new ToolError('UPSTREAM_ERROR', `Fetching the bundle at ${url.href} answered HTTP ${response.status}.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new ToolError('RESPONSE_TOO_LARGE', `The bundle at ${url.href} is larger than ${maxBytes} bytes.`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/**
 * Unpacks a zip into `dir` (made whole in a folder beside it, then renamed): a path that is
 * absolute or climbs out is refused, and so is a bundle whose files take more than `maxBytes`
 * unpacked, counted as each file is inflated and written (what the zip says of its sizes is not
 * trusted), so a bomb stops there, on disk and in memory alike.
 */
async function unpack(bytes: Buffer, dir: string, maxBytes: number): Promise<void> {
  const { default: JSZip } = await import('jszip');
  const zip = await JSZip.loadAsync(bytes).catch((error: Error) => {
    throw new ToolError('INVALID_INPUT', `The bundle is not a zip file: ${error.message}`);
  });
  const files = Object.values(zip.files);
  if (files.length > MAX_BUNDLE_FILES) {
    throw new ToolError('RESPONSE_TOO_LARGE', `The bundle holds ${files.length} files, more than mcpkit unpacks (${MAX_BUNDLE_FILES}): it was not installed.`);
  }
  const partial = `${dir}.partial-${randomUUID()}`;
  const budget = { left: maxBytes, max: maxBytes };
  try {
    for (const file of files) {
      // JSZip takes "../" off a name as it reads it: the name the zip holds is the one judged.
      const held = file.unsafeOriginalName ?? file.name;
      const name = held.replace(/\\/g, '/');
      if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.split('/').includes('..')) {
        throw new ToolError('INVALID_INPUT', `The bundle holds the path "${held}", which would land outside its folder: it was not installed.`);
      }
      const target = join(partial, ...name.split('/'));
      if (!target.startsWith(partial + sep)) throw new ToolError('INVALID_INPUT', `The bundle holds the path "${file.name}", outside its folder.`);
      if (file.dir) {
        await mkdir(target, { recursive: true });
        continue;
      }
      await mkdir(dirname(target), { recursive: true });
      await writeCounted(file.nodeStream('nodebuffer'), target, budget);
      const mode = typeof file.unixPermissions === 'number' && (file.unixPermissions & 0o111) !== 0 ? 0o755 : 0o644;
      await chmod(target, mode);
    }
    await mkdir(dirname(dir), { recursive: true });
    await rename(partial, dir).catch(async (error: NodeJS.ErrnoException) => {
      // Another process unpacked the same bundle first: its copy is the same bytes.
      if ((await stat(join(dir, 'manifest.json')).catch(() => undefined)) === undefined) throw error;
    });
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}

/** Writes an inflating stream to `target`, stopping with RESPONSE_TOO_LARGE once the bundle's budget is spent. */
async function writeCounted(source: NodeJS.ReadableStream, target: string, budget: { left: number; max: number }): Promise<void> {
  const [{ createWriteStream }, { pipeline }, { Transform }] = await Promise.all([import('node:fs'), import('node:stream/promises'), import('node:stream')]);
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      budget.left -= chunk.length;
      if (budget.left < 0) {
        done(
          new ToolError('RESPONSE_TOO_LARGE', `The bundle's files take more than ${budget.max} bytes unpacked: it was not installed.`, {
            details: { max_bundle_bytes: budget.max },
            hint: 'A bundle this large is unusual (a zip bomb, or a mistake). Raise registry.max_bundle_bytes only for a bundle you trust.',
          }),
        );
        return;
      }
      done(null, chunk);
    },
  });
  await pipeline(source, count, createWriteStream(target));
}
