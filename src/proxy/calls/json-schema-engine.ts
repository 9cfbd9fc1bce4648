import type { ErrorObject, ValidateFunction } from 'ajv';
import { createRequire } from 'node:module';
import { metaValidators, type MetaValidate } from './meta-validators.generated.js';

/** The JSON Schema dialects mcpkit checks arguments in; draft-07 unless a schema declares another. */
export type Dialect = keyof typeof metaValidators;

/** The dialect a schema declares in `$schema` (2020-12, 2019-09), else draft-07. Pure. */
export function dialectOf(schema: object): Dialect {
  const declared = String((schema as { $schema?: unknown }).$schema ?? '');
  return declared.includes('2020-12') ? '2020' : declared.includes('2019-09') ? '2019' : '07';
}

type Engine = { compile(schema: object): ValidateFunction; errorsText(errors?: ErrorObject[] | null): string };
type AjvClass = new (options: object) => Engine;
type AjvModules = { ajv: (dialect: Dialect) => AjvClass; equal: (a: unknown, b: unknown) => boolean };

/**
 * ajv and its deep equality, loaded at the first schema compiled. A plain `require` of a literal
 * name is what esbuild bundles (lazily, as CommonJS in the output), so the serve script's code
 * cache covers ajv's code; loaded from node_modules it was ~100 files to resolve and compile at
 * every first call. Without a `require` (the sources run as ES modules by tsx) it comes from node_modules.
 */
function loadAjv(): AjvModules {
  const load = typeof require === 'function' ? undefined : createRequire(import.meta.url);
  if (load)
    return {
      ajv: (dialect) => load(dialect === '2020' ? 'ajv/dist/2020' : dialect === '2019' ? 'ajv/dist/2019' : 'ajv').default,
      equal: load('ajv/dist/runtime/equal').default,
    };
  /* eslint-disable typescript/no-require-imports -- a require of a literal name is what the build bundles (above) */
  return {
    ajv: (dialect) => (dialect === '2020' ? require('ajv/dist/2020').default : dialect === '2019' ? require('ajv/dist/2019').default : require('ajv').default),
    equal: require('ajv/dist/runtime/equal').default,
  };
  /* eslint-enable typescript/no-require-imports */
}

let modules: AjvModules | undefined;
const metas = new Map<Dialect, MetaValidate>();

/** The dialect's meta-schema validator, compiled at build time (scripts/ajv-meta.mjs), made once per process. */
function metaValidatorOf(dialect: Dialect, equal: AjvModules['equal']): MetaValidate {
  let meta = metas.get(dialect);
  if (!meta) metas.set(dialect, (meta = metaValidators[dialect](equal)));
  return meta;
}

/**
 * The options every engine compiles with; the meta validators were generated under the same
 * (scripts/ajv-meta.mjs ENGINE_OPTIONS, held equal by test/unit/meta-validators-generated.test.ts),
 * so a schema is judged valid under the options it is compiled with.
 */
export const ENGINE_OPTIONS = { allErrors: true, strict: false, validateFormats: false } as const;

/**
 * Compiles a JSON Schema with ajv in the dialect it declares; throws when its dialect's meta-schema
 * rejects it ("schema is invalid: ...", as ajv says it) or ajv cannot compile it. Each schema gets
 * an engine of its own: a schema's `$id`s and anchors are registered in the engine that compiles
 * it, so a shared one let a second schema with the same `$id` fail, and let one upstream's schema
 * `$ref` another's. An engine skips the meta-schema (checked above by the precompiled validator),
 * which is what made one expensive; a fresh one costs about what the compile costs.
 */
export function compileJsonSchema(schema: object): ValidateFunction {
  modules ??= loadAjv();
  const dialect = dialectOf(schema);
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  const ajv = new (modules.ajv(dialect))({ ...ENGINE_OPTIONS, validateSchema: false });
  const meta = metaValidatorOf(dialect, modules.equal);
  if (!meta(rest)) throw new Error(`schema is invalid: ${ajv.errorsText(meta.errors)}`);
  return ajv.compile(rest);
}
