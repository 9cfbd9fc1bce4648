import { stringify } from 'yaml';

/** YAML text of plain data, for human output (loaded on demand: yaml is not needed to start). */
export function toYamlText(data: unknown): string {
  return stringify(data);
}
