import type { Runtime } from '../../app/runtime.js';
import type { McpkitConfig } from '../../config/schema/schema.js';

/**
 * The config's serve section for the commands that only read it (clients, stats): as loaded, or,
 * when it was set aside for its problems (an unset ${VAR} of an agent's token in this shell), as
 * written, with those problems, so a command does not report settings the file has as absent.
 * A written value still holding a placeholder is the caller's to refuse.
 */
export async function serveAsWritten(runtime: Runtime): Promise<{ serve: McpkitConfig['serve']; problems?: readonly string[] }> {
  const config = await runtime.config();
  const lines = [...(config.unusable?.serve ?? []), ...(config.unusable?.['serve.http'] ?? [])];
  if (!lines.length) return { serve: config.serve };
  const problems = lines;
  const [{ inspectConfig }, { serveSchema }] = await Promise.all([import('../../config/load.js'), import('../../config/schema/serve-schema.js')]);
  const written = await inspectConfig(runtime.configLocation, runtime.env);
  const parsed = serveSchema.safeParse((written.raw as { serve?: unknown } | undefined)?.serve ?? {});
  return { serve: parsed.success ? parsed.data : config.serve, problems };
}
