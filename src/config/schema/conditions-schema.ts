import * as z from 'zod';
import { compileExpression } from '../../conditions/engine.js';
import { globSource } from '../../conditions/functions.js';

/**
 * `conditions` of a view (tool_views.NAME) and of a named client (serve.clients.NAME): CEL
 * expressions over a call's arguments, compiled and type-checked here, so `config validate`, every
 * edit and every reload refuse one that would not run (as `path: column N: message`).
 */
const expression = z
  .string()
  .min(1)
  .superRefine((source, ctx) => {
    // A ${VAR} left for later: checked once interpolated (this schema runs before and after).
    if (source.includes('${')) return;
    const compiled = compileExpression(source);
    if (!compiled.ok) ctx.addIssue({ code: 'custom', message: `column ${compiled.column}: ${compiled.message}` });
  });

const conditionSchema = z.union([
  expression,
  z.strictObject({
    when: expression.describe('The CEL expression: the call goes through only when it is true.'),
    message: z.string().min(1).optional().describe('What a refused caller is told (and what the describe tool shows), instead of the expression.'),
  }),
]);

const toolGlob = z.string().superRefine((glob, ctx) => {
  try {
    globSource(glob, 'name');
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

export const conditionsSchema = z
  .record(toolGlob, conditionSchema)
  .describe(
    'Conditions on arguments: a glob over the published tool name -> a CEL expression (or { when, message }). A call goes through only when every condition whose glob matches its tool is true; false, an error or a missing argument refuses it (CONDITION_FAILED). Sees args, tool, server, view, client, claims; functions under(path, root|[roots]), glob(text, pattern), json(value), and matches (RE2).',
  );
