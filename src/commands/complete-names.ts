import { Args } from '@oclif/core';
import { McpkitCommand } from '../cli/base-command.js';
import { NAME_KINDS, type NameKind } from '../cli/completion-names.js';

/** What a name offered to a shell may hold: MCP's tool name characters, and nothing a shell expands. */
const SAFE_NAME = /^[A-Za-z0-9_./-]{1,128}$/;

export default class CompleteNames extends McpkitCommand {
  static override hidden = true;
  static override summary = "The config's names of one kind, one per line: what tab completion offers at an argument (cli/completion-names.ts).";
  static override examples = ['<%= config.bin %> complete-names servers', '<%= config.bin %> complete-names tools --config ./mcpkit.yaml'];
  static override args = {
    kind: Args.string({
      description: 'servers, views, tools (as call takes them; no server is started), clients, composites or roots (of retrieve).',
      required: true,
      options: [...NAME_KINDS],
    }),
  };

  async run(): Promise<string[]> {
    const { args, flags } = await this.parse(CompleteNames);
    // bash's compgen -W expands the words it is given ($(...) included): a name from an upstream's
    // listing that is more than a name is never offered, so a tab press runs nothing of a server's.
    const names = (await this.names(args.kind as NameKind, flags.config)).filter((name) => SAFE_NAME.test(name));
    if (!this.jsonEnabled()) for (const name of names) this.scope.io.out(`${name}\n`);
    return names;
  }

  private async names(kind: NameKind, configFlag: string | undefined): Promise<string[]> {
    const runtime = this.runtime(configFlag);
    // As written: a name whose entry this shell cannot resolve (an unset ${VAR}) is still a name.
    const { inspectConfig } = await import('../config/load.js');
    const raw = ((await inspectConfig(runtime.configLocation, runtime.env)).raw ?? {}) as Record<string, Record<string, unknown> | undefined>;
    const keys = (section: unknown) => Object.keys((section as object | undefined) ?? {});
    switch (kind) {
      case 'servers':
        return keys(raw.mcp_servers);
      case 'views':
        return keys(raw.tool_views);
      case 'clients':
        return keys(raw.serve?.clients);
      case 'composites':
        return keys(raw.composite_tools);
      case 'roots':
        return keys((raw.retrieve as { roots?: unknown } | undefined)?.roots);
      case 'tools': {
        // The names call takes: mcpkit's own, and each server's as it last listed them (none is started).
        const { listKnownTools } = await import('../cli/upstream-calls.js');
        const own = (await runtime.offeredTools()).map((t) => t.name);
        const known = await listKnownTools(runtime, new Set(own)).catch(() => ({ tools: [] as { name: string }[] }));
        return [...own, ...known.tools.map((t) => t.name)];
      }
    }
  }
}
