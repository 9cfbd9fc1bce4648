import { invalidArguments } from '../../core/schema.js';
import { compileJsonSchema } from './json-schema-engine.js';

/**
 * Checks arguments for a proxied tool against the JSON Schema its upstream publishes, before the
 * call leaves mcpkit. Validators are compiled once per schema object (json-schema-engine.ts). A
 * schema its dialect's meta-schema rejects, or ajv cannot compile, is not enforced (the upstream
 * will still check), and that is reported once through `onSkip`.
 */
export interface ArgsIssue {
  path: string;
  message: string;
}

export type ArgsCheck = (args: unknown) => ArgsIssue[];

/**
 * The arguments as checked: a top-level `null` for an optional parameter counts as not given. MCP
 * clients send it so (SEP-2243 omits the parameter's header for it; agents often write null for
 * "none"), and the server decides what it means; the call itself goes out with the null.
 */
function withoutNullOptionals(args: unknown, required: ReadonlySet<string>): unknown {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return args;
  const entries = Object.entries(args);
  if (!entries.some(([key, value]) => value === null && !required.has(key))) return args;
  return Object.fromEntries(entries.filter(([key, value]) => value !== null || required.has(key)));
}

export function createArgsValidator(onSkip: (reason: string) => void = () => {}): (schema: object) => ArgsCheck {
  const cache = new WeakMap<object, ArgsCheck>();
  return (schema) => {
    const cached = cache.get(schema);
    if (cached) return cached;
    let check: ArgsCheck;
    try {
      const validate = compileJsonSchema(schema);
      const required = new Set(Array.isArray((schema as { required?: unknown }).required) ? ((schema as { required: unknown[] }).required as string[]) : []);
      check = (args) =>
        validate(withoutNullOptionals(args ?? {}, required))
          ? []
          : (validate.errors ?? []).map((e) => {
              const at = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
              const params = e.params as { missingProperty?: string; additionalProperty?: string };
              if (e.keyword === 'required') return { path: at ? `${at}.${params.missingProperty}` : String(params.missingProperty), message: 'is required' };
              if (e.keyword === 'additionalProperties') return { path: at || '(root)', message: `unknown argument "${params.additionalProperty}"` };
              return { path: at || '(root)', message: e.message ?? 'is invalid' };
            });
    } catch (error) {
      onSkip((error as Error).message);
      check = () => [];
    }
    cache.set(schema, check);
    return check;
  };
}

/** Throws INVALID_INPUT naming `tool` and every issue when `args` break `schema`; else returns. */
export type ArgsGuard = (tool: string, schema: object, args: unknown) => void;

/** The router's one check of arguments (ordinary path, hot path, meta-tools), over one validator cache. */
export function createArgsGuard(onSkip: (reason: string) => void): ArgsGuard {
  const checkOf = createArgsValidator(onSkip);
  return (tool, schema, args) => {
    const issues = checkOf(schema)(args ?? {});
    if (issues.length) throw invalidArguments(tool, issues);
  };
}
