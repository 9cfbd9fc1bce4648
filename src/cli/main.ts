import { execute } from '@oclif/core';

/**
 * Entry of the built CLI. Lives in the bundle (not in bin/) so that oclif itself is bundled with
 * the commands: loading @oclif/core from node_modules cost ~130 ms of module resolution here,
 * the bundled copy ~60 ms. `binUrl` is bin/run.js, from which oclif finds package.json.
 */
export async function main(binUrl: string, args: string[] = process.argv.slice(2)): Promise<void> {
  await execute({ dir: binUrl, args });
}
