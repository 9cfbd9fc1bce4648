import { McpkitCommand } from '../cli/base-command.js';
import { version } from '../core/version.js';

export default class Version extends McpkitCommand {
  static override summary = "Show mcpkit's version, and the Node.js and system it runs on.";
  static override description = 'The same as mcpkit --version; --json gives each part as a field, for bug reports and scripts.';
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --json'];

  async run(): Promise<unknown> {
    await this.parse(Version);
    const about = { version: version(), node: process.versions.node, platform: process.platform, arch: process.arch };
    if (!this.jsonEnabled()) this.print(`mcpkit/${about.version} ${about.platform}-${about.arch} node-v${about.node}`);
    return about;
  }
}
