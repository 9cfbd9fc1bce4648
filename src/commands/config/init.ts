import { Flags } from '@oclif/core';
import { resolve } from 'node:path';
import { McpkitCommand } from '../../cli/base-command.js';
import { replaceConfigText } from '../../config/edit.js';
import { LOCAL_CONFIG_NAME } from '../../config/locate.js';
import { STARTER_CONFIG } from '../../config/starter.js';

export default class ConfigInit extends McpkitCommand {
  static override summary = 'Write a commented starter config file.';
  static override description =
    'Writes to the file "mcpkit config path" names (the user config directory unless --config, MCPKIT_CONFIG or ./mcpkit.yaml say otherwise), or to ./mcpkit.yaml with --local. An existing file is kept unless --force.';
  static override examples = [
    '<%= config.bin %> config init',
    '<%= config.bin %> config init --local',
    '<%= config.bin %> config init --config ./team.yaml --force',
  ];
  static override flags = {
    local: Flags.boolean({ description: `Write ./${LOCAL_CONFIG_NAME} in the current directory.` }),
    force: Flags.boolean({ char: 'f', description: 'Replace an existing file.' }),
  };

  async run(): Promise<{ path: string; replaced: boolean }> {
    const { flags } = await this.parse(ConfigInit);
    const location = this.toolContext(flags.config).configLocation;
    const path = flags.local && !flags.config ? resolve(this.scope.cwd, LOCAL_CONFIG_NAME) : location.path;
    const { replaced } = await replaceConfigText(path, STARTER_CONFIG, { overwrite: flags.force, createFolder: !flags.local && location.source === 'user' });
    if (!this.jsonEnabled()) this.print(`${replaced ? 'Replaced' : 'Wrote'} ${path}`);
    return { path, replaced };
  }
}
