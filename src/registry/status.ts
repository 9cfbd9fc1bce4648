import { field, ToolError } from '../core/errors.js';
import type { ServerEntry } from './client.js';

/**
 * A registry entry's status, from the official metadata (`_meta["io.modelcontextprotocol.registry/official"]`):
 * `active`, `deprecated` or `deleted`, with when and why it changed on newer registries; an entry
 * that says nothing is active. Pure.
 */
export interface RegistryStatus {
  status: string;
  message?: string;
  changedAt?: string;
}

export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';

export function statusOf(entry: Pick<ServerEntry, '_meta'>): RegistryStatus {
  const meta = (entry._meta?.[OFFICIAL_META] ?? {}) as { status?: unknown; statusMessage?: unknown; statusChangedAt?: unknown };
  return {
    status: typeof meta.status === 'string' && meta.status ? meta.status : 'active',
    ...(typeof meta.statusMessage === 'string' && meta.statusMessage ? { message: meta.statusMessage } : {}),
    ...(typeof meta.statusChangedAt === 'string' ? { changedAt: meta.statusChangedAt } : {}),
  };
}

/**
 * Which of two versions is newer: semver-like numbers compared part by part (a pre-release after
 * `-` is older than its release), anything else by text. Positive when `a` is newer. Pure.
 */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core, pre] = v.replace(/^v/, '').split('-', 2) as [string, string | undefined];
    return { parts: core.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.parts.length, y.parts.length); i++) {
    const p = x.parts[i] ?? 0;
    const q = y.parts[i] ?? 0;
    if (p === q) continue;
    if (typeof p === 'number' && typeof q === 'number') return p - q;
    return String(p) < String(q) ? -1 : 1;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/** A deleted server is never installed; a deprecated one only with force, saying why it is deprecated. */
export function refuseByStatus(name: string, status: RegistryStatus, force: boolean): void {
  if (status.status === 'deleted') {
    throw new ToolError('INVALID_INPUT', `${name} is deleted from the registry${status.message ? `: ${status.message}` : ''}; it is not installed.`, {
      details: { server: name, status: status.status },
      hint: 'Search the registry for a replacement: mcpkit registry list --search ...',
    });
  }
  if (status.status === 'deprecated' && !force) {
    throw new ToolError('INVALID_INPUT', `${name} is deprecated in the registry${status.message ? `: ${status.message}` : ''}.`, {
      details: { server: name, status: status.status, ...(status.message ? { status_message: status.message } : {}) },
      hint: `Install it anyway with ${field('force')}, or look for its replacement.`,
    });
  }
}
