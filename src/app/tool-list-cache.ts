import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { cacheDir } from '../config/schema/defaults.js';
import type { Tool } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../config/schema/schema.js';
import { stableJson } from '../core/stable-json.js';

/**
 * Each upstream server's last tools/list, as a terminal command saw it, under
 * `$XDG_CACHE_HOME/mcpkit/tools/` (else ~/.cache): keyed by a hash of the server's name and config
 * entry, so an edited entry starts afresh. A later command makes its catalog from it and starts
 * only the server a call needs (ViewCatalog.entryForCall), and `tools --cached` answers from it
 * alone. A call never trusts it: the server it names is started and lists its tools first.
 */
export class ToolListCache {
  readonly folder: string;

  constructor(env: NodeJS.ProcessEnv) {
    this.folder = join(cacheDir(env, homedir()), 'tools');
  }

  read(name: string, config: ServerConfig): Tool[] | undefined {
    try {
      const saved = JSON.parse(readFileSync(this.fileOf(name, config), 'utf8')) as { tools?: unknown };
      return Array.isArray(saved.tools) ? (saved.tools as Tool[]) : undefined;
    } catch {
      return undefined; // none yet, or unreadable: the server is listed as without a cache
    }
  }

  /** Written whole (a temp file renamed over it); a cache that cannot be written is only a slower next command. */
  write(name: string, config: ServerConfig, tools: readonly Tool[]): void {
    const file = this.fileOf(name, config);
    const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    try {
      mkdirSync(this.folder, { recursive: true, mode: 0o700 });
      writeFileSync(temp, JSON.stringify({ server: name, listed_at: new Date().toISOString(), tools }), { mode: 0o600 });
      renameSync(temp, file);
    } catch {
      try {
        unlinkSync(temp);
      } catch {
        /* never made */
      }
    }
  }

  private fileOf(name: string, config: ServerConfig): string {
    return join(this.folder, `${createHash('sha256').update(stableJson({ name, config })).digest('hex').slice(0, 32)}.json`);
  }
}
