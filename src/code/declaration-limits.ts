/**
 * How large and how costly code mode's TypeScript declarations may be (./declarations.ts). A tool's
 * schema comes from an upstream, which may be hostile: 300 bytes of `$ref`s can describe a type of
 * billions of members, so the walk that writes one is bounded in its text and in its work. Pure.
 */

/** A view's `code:` settings that bound its declarations (serve.code, tool_views.NAME.code). */
export interface DeclarationLimits {
  /** Bytes of one tool's declaration: past them the rest of its schema is written `unknown`, with a note. */
  maxDeclarationBytes: number;
  /** Bytes of the declarations of one search or describe answer: the tools past them are named, not declared. */
  maxAnswerBytes: number;
}

/** An ordinary tool declares in well under 3 KB (server-everything, -memory, -filesystem, mcpkit's own). */
export const DECLARATION_DEFAULTS: DeclarationLimits = { maxDeclarationBytes: 20_000, maxAnswerBytes: 100_000 };

/** A view's `code:` settings over the defaults. Pure. */
export function declarationLimitsOf(settings: { max_declaration_bytes?: number; max_answer_bytes?: number } | undefined): DeclarationLimits {
  return {
    maxDeclarationBytes: settings?.max_declaration_bytes ?? DECLARATION_DEFAULTS.maxDeclarationBytes,
    maxAnswerBytes: settings?.max_answer_bytes ?? DECLARATION_DEFAULTS.maxAnswerBytes,
  };
}

/**
 * Fixed bounds of one walk of a schema. `maxNodes` bounds the work whatever the shape (a schema
 * wide and shallow, or `allOf`s of empty schemas, writes little text for many steps); depth and
 * width keep what a model reads readable.
 */
export const WALK_BOUNDS = {
  /** Schemas visited for one tool (its input and its result together). */
  maxNodes: 2_000,
  /** Nesting, a `$ref` followed counting as a level. */
  maxDepth: 8,
  /** Properties of one object, members of one union, values of one enum. */
  maxWidth: 200,
} as const;
