import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

/**
 * The shell lines of one README section, as a user would copy them: each line of its `sh` blocks,
 * the trailing comment kept apart (it may say what the line exits with, or why it cannot run in a
 * test: `# illustrative: REASON`). Tests run these lines as written, never retyped copies.
 */
export interface ReadmeLine {
  command: string;
  comment: string;
  /** Why the line cannot run here (a keyring, a browser, a remote service), from its mark. */
  illustrative?: string;
}

/** The text under the `## ` heading that starts with `heading`, up to the next `## ` heading. */
export function readmeSection(heading: string, readme = readFileSync(join(ROOT, 'README.md'), 'utf8')): string {
  const start = readme.indexOf(`\n## ${heading}`);
  if (start < 0) throw new Error(`README.md has no section "## ${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The lines of a section's `sh` blocks, in order; a comment is two spaces or more, then `#`. Pure. */
export function shellLines(section: string): ReadmeLine[] {
  const lines: ReadmeLine[] = [];
  let inBlock = false;
  for (const raw of section.split('\n')) {
    if (raw.startsWith('```')) {
      inBlock = raw === '```sh';
      continue;
    }
    if (!inBlock || !raw.trim() || raw.trim().startsWith('#')) continue;
    const at = /\s{2,}#\s?(.*)$/.exec(raw);
    const command = (at ? raw.slice(0, at.index) : raw).trim();
    const comment = at?.[1]?.trim() ?? '';
    const illustrative = /^illustrative:\s*(.+)$/.exec(comment)?.[1];
    lines.push(illustrative ? { command, comment, illustrative } : { command, comment });
  }
  return lines;
}
