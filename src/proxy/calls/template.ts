/**
 * `{inputs.query}` and `{steps.first.result.items.0.id}` in composite tool arguments. A string that
 * is exactly one placeholder takes the value itself (a number stays a number, an object an object);
 * placeholders inside longer text are replaced by their text (JSON for non-strings). A path that
 * leads nowhere is an error naming it. Pure.
 */
const PLACEHOLDER = /\{((?:inputs|steps)(?:\.[A-Za-z0-9_-]+)*)\}/g;
const WHOLE = /^\{((?:inputs|steps)(?:\.[A-Za-z0-9_-]+)*)\}$/;

export class TemplateError extends Error {}

export function lookup(scope: Record<string, unknown>, path: string): unknown {
  let value: unknown = scope;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !(key in (value as object))) {
      throw new TemplateError(`{${path}} does not resolve: "${key}" is missing`);
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export function renderTemplate(value: unknown, scope: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookup(scope, whole[1]!);
    return value.replace(PLACEHOLDER, (_m, path: string) => {
      const found = lookup(scope, path);
      return typeof found === 'string' ? found : JSON.stringify(found);
    });
  }
  if (Array.isArray(value)) return value.map((item) => renderTemplate(item, scope));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderTemplate(v, scope)]));
  }
  return value;
}
