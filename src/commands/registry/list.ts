import { SETTING_DEFAULTS } from '../../config/schema/defaults.js';
import { Flags } from '@oclif/core';
import { commandFromTool } from '../../cli/command-from-tool.js';
import { inputFromCommandLine } from '../../cli/args/field-specs.js';
import { createRenderUi } from '../../cli/terminal/render.js';
import { ToolError } from '../../core/errors.js';
import { parseToolInput } from '../../tool/mcp-shape.js';
import type { ServerEntry } from '../../registry/client.js';
import { fetchPage, listServers, serverTable } from '../../tools/registry/list.js';
import { shown } from '../../tools/registry/shared.js';

const Base = commandFromTool(listServers);
/** A registry that hands out cursors without end must not keep a terminal busy forever. */
const DEFAULT_MAX_PAGES = SETTING_DEFAULTS.registry.max_pages;

/** `registry list`, plus --all: a terminal extra that follows the cursors to the last page. */
export default class RegistryList extends Base {
  static override flags = {
    ...Base.flags,
    all: Flags.boolean({ description: 'Follow metadata.nextCursor to the last page and show every server (progress on stderr in a terminal).' }),
  };

  override async run(): Promise<unknown> {
    const { flags, argv } = await this.parse(RegistryList);
    const raw = inputFromCommandLine(Base.specs, flags, argv as string[]);
    if (!flags.all) return this.runTool(listServers, raw, flags.config);
    const input = parseToolInput(listServers, raw);
    const ctx = this.toolContext(flags.config);
    const servers: ServerEntry[] = [];
    // A count that rewrites itself, on a terminal only (a hosted command's stderr is none).
    const progress = !this.scope.hosted && process.stderr.isTTY ? (text: string) => this.scope.io.err(`\r${text}`) : () => {};
    let cursor = input.cursor;
    let pages = 0;
    const seen = new Set<string>();
    const maxPages = (await this.runtime(flags.config).config()).registry.max_pages ?? DEFAULT_MAX_PAGES;
    do {
      if (pages >= maxPages) {
        progress('\n');
        throw new ToolError('RESPONSE_TOO_LARGE', `registry list --all stopped after ${maxPages} pages (${servers.length} servers); the registry has more.`, {
          details: { pages, servers: servers.length, next_cursor: cursor },
          hint: `Narrow it with --search, or raise registry.max_pages; continue from here with --cursor ${cursor}.`,
        });
      }
      const page = await fetchPage({ ...input, cursor }, ctx);
      servers.push(...page.servers);
      pages++;
      cursor = page.metadata?.nextCursor;
      if (cursor !== undefined && seen.has(cursor))
        throw new ToolError('UPSTREAM_ERROR', `The registry sent the cursor ${cursor} twice; stopping rather than looping.`);
      if (cursor !== undefined) seen.add(cursor);
      progress(`${servers.length} servers, ${pages} pages${cursor ? '…' : ''}`);
    } while (cursor);
    progress('\n');
    const result = await shown({ servers, metadata: { count: servers.length, pages } }, input, ctx);
    if (!this.jsonEnabled()) this.print(servers.length ? serverTable(result.servers, createRenderUi(this.color)) : 'No servers match.');
    return result;
  }
}
