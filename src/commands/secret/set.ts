import { Args } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';
import { ToolError } from '../../core/errors.js';

export default class SecretSet extends McpkitCommand {
  static override summary =
    'Keep a secret in the system keyring, for the config to use as ${keyring:NAME}: its value from stdin or a prompt, never the command line.';
  static override description =
    'Saves the value under service "mcpkit", account NAME (macOS Keychain, Windows Credential Manager, the Secret Service on Linux). Piped in, the value is stdin with one trailing newline dropped; at a terminal it is asked for without echo. A running serve reads it again within serve.keyring_poll_ms (30 s by default) or at once on SIGHUP, and restarts only the servers that use it. Where no keyring runs, keep the secret in a file and write ${file:PATH} instead.';
  static override examples = [
    '<%= config.bin %> secret set GITHUB_TOKEN',
    'printf %s "$TOKEN" | <%= config.bin %> secret set GITHUB_TOKEN',
    '<%= config.bin %> secret set GITHUB_TOKEN < ~/gh-token.txt',
  ];
  static override args = { name: Args.string({ description: "The secret's name, as in ${keyring:NAME}.", required: true }) };
  // A value typed after the name is refused with why, not taken: argv is kept by ps and shell history.
  static override strict = false;

  async run(): Promise<{ name: string; set: true }> {
    const { args, argv } = await this.parse(SecretSet);
    if (argv.length > 1) {
      throw new ToolError(
        'INVALID_INPUT',
        `secret set takes the value of ${args.name} from stdin or a prompt, never from the command line (ps and shell history keep it).`,
        {
          hint: `Run: mcpkit secret set ${args.name}   (and type it), or: printf %s "$VALUE" | mcpkit secret set ${args.name}`,
        },
      );
    }
    if (this.scope.hosted) throw new ToolError('FORBIDDEN', 'secret set reads its own terminal: run it as a command of its own.');
    const [{ systemKeyring }, { readSecretValue }, { keyringNameProblem }] = await Promise.all([
      import('../../config/secrets/keyring.js'),
      import('../../cli/terminal/secret-input.js'),
      import('../../config/secrets/secret-refs.js'),
    ]);
    const bad = keyringNameProblem(args.name);
    if (bad) throw new ToolError('INVALID_INPUT', bad);
    const keyring = systemKeyring();
    // Reached before the value is asked for: where no keyring runs, nobody types a secret for nothing.
    await keyring.names();
    const value = await readSecretValue(args.name, { stdin: process.stdin, prompt: (text) => this.scope.io.err(text) });
    await keyring.set(args.name, value);
    if (!this.jsonEnabled())
      this.scope.io.err(
        `Secret ${args.name} saved in the system keyring. Write \${keyring:${args.name}} in the config; a running serve takes the new value within serve.keyring_poll_ms (30 s by default), or at once on SIGHUP.\n`,
      );
    return { name: args.name, set: true };
  }
}
