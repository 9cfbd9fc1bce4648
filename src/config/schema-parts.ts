import * as z from 'zod';
import { EXPOSURES, TOKEN_BUDGET_RANGE } from './defaults.js';

/** Pieces of the config's schema that more than one of its sections uses. */
export const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
export const name = (what: string) => z.string().regex(NAME, `${what} names use letters, digits, "_", "-" and "." and start with a letter or digit`);

/** A string that may still hold `${VAR}` placeholders when an edit is validated before interpolation. */
export const templated = (check: (value: string) => boolean, message: string) => z.string().refine((value) => value.includes('${') || check(value), message);

/** Whether a value parses as an http(s) URL. */
export const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

export const exposureSchema = z.enum(EXPOSURES);
export const tokenBudgetSchema = z.int().min(TOKEN_BUDGET_RANGE.min).max(TOKEN_BUDGET_RANGE.max);
export const EXPOSURE_TEXT =
  'auto (default): every tool listed while tools/list fits token_budget, else search meta-tools plus the pinned and most used tools; direct: every tool listed; search: the meta-tools (and pins) only.';
