import type { Installation } from '../../registry/install.js';
import type { ToolContext } from '../../tool/context.js';
import { literalText } from '../../config/secrets/interpolate.js';

/**
 * An installation whose package is an mcpb bundle, made whole: the bundle fetched, checked against
 * its fileSha256 and unpacked (registry/mcpb.ts), and its manifest's mcp_config made the entry
 * (registry/mcpb-manifest.ts). Any other installation is returned as it is.
 */
export async function completedPlan(plan: Installation, ctx: ToolContext, description?: string): Promise<Installation & { sha256?: string }> {
  if (!plan.bundle) return plan;
  const [{ fetchBundle }, { bundleEntry }] = await Promise.all([import('../../registry/mcpb.js'), import('../../registry/mcpb-manifest.js')]);
  const maxUnpackedBytes = (await ctx.config()).registry.max_bundle_bytes;
  const unpacked = await fetchBundle(plan.bundle.url, plan.bundle.sha256, {
    env: ctx.env,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(maxUnpackedBytes !== undefined ? { maxUnpackedBytes } : {}),
  });
  const { entry, variables } = bundleEntry(unpacked.manifest, unpacked.dir);
  return {
    ...plan,
    entry: { ...(description && entry.description === undefined ? { description: literalText(description) } : {}), ...entry },
    variables,
    notes: [...plan.notes, `Unpacked the bundle (SHA-256 ${unpacked.sha256.slice(0, 12)}…, checked) into ${unpacked.dir}.`],
    sha256: unpacked.sha256,
  };
}
