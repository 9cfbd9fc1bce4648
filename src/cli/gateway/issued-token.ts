import type { Document } from 'yaml';
import type { ToolContext } from '../../tool/context.js';
import type { CliIo } from '../terminal/cli-io.js';

/**
 * A new token for a client, written to the config as its SHA-256 only (one locked edit: a refused
 * edit writes nothing and shows no token). The token is returned to be shown once, never kept.
 */
export async function issueToken<R>(ctx: ToolContext, mutate: (doc: Document, digest: string) => R): Promise<{ token: string; value: R; path: string }> {
  const [{ newClientToken, tokenDigest }, { editConfigFile }] = await Promise.all([
    import('../../mcp/access/route-access.js'),
    import('../../tools/shared/config-access.js'),
  ]);
  const token = newClientToken();
  const outcome = await editConfigFile(ctx, (doc) => mutate(doc, tokenDigest(token)));
  return { token, value: outcome.value, path: outcome.path };
}

/**
 * The token alone on stdout (so `TOKEN=$(mcpkit clients add ...)` holds just it), what to do with
 * it on stderr: the one time it is shown.
 */
export function showToken(io: CliIo, token: string, said: string): void {
  io.out(`${token}\n`);
  io.err(
    `${said}\nThis token is shown once: the config holds only its SHA-256. Give it to the agent as the header "Authorization: Bearer <token>" (mcpkit view install VIEW --client NAME --url URL writes it).\n`,
  );
}
