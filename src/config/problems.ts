import type { z } from 'zod';
import { ToolError } from '../core/errors.js';

/** One thing wrong with a config, as `path: message`. */
export interface ConfigProblem {
  path: string;
  message: string;
}

export function problemsFromZod(error: z.ZodError): ConfigProblem[] {
  return error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.map(String).join('.') : '(root)';
    // A bad record key says only "Invalid key in record"; the reason is in the nested issues.
    if (issue.code === 'invalid_key' && issue.issues.length) {
      return { path, message: `invalid name: ${issue.issues.map((i) => i.message).join('; ')}` };
    }
    return { path, message: issue.message };
  });
}

export function formatProblems(problems: readonly ConfigProblem[]): string {
  return problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
}

export function configInvalid(
  file: string,
  problems: readonly ConfigProblem[],
  lead = 'is invalid',
  hint = 'Fix the file by hand or with mcpkit\'s config commands; "mcpkit config validate" lists every problem.',
): ToolError {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return new ToolError('CONFIG_INVALID', `Config ${file} ${lead} (${count}):\n${formatProblems(problems)}`, {
    details: { file, problems },
    hint,
  });
}
