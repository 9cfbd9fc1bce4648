import type { ErrorObject } from 'ajv';

/** A dialect's meta-schema validator as ajv's standalone code writes it (scripts/ajv-meta.mjs). */
export interface MetaValidate {
  (schema: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** Per dialect, its validator made from ajv's deep equality. */
export declare const metaValidators: Record<'07' | '2019' | '2020', (equal: (a: unknown, b: unknown) => boolean) => MetaValidate>;
