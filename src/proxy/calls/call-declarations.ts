import type { DeclaredTool } from '../../code/declarations.js';
import type { ConditionRule } from '../../conditions/rules.js';
import type { ToolAccess } from '../../tool/tool-access.js';
import type { CatalogEntry } from '../catalog/catalog.js';
import { declaredToolOf } from '../catalog/code-names.js';
import type { CallRouterOptions } from './call-options.js';
import type { CallLookup } from './call-lookup.js';
import { rulesFor, withConditions } from './conditions-check.js';

/**
 * The tools as one caller may call them, for code mode: each tool it may call, declared as a
 * script reaches it, with the conditions that apply to this caller's calls in its description.
 */

type DeclarationOptions = Pick<CallRouterOptions, 'catalog' | 'conditions'>;

export class CallDeclarations {
  constructor(
    private readonly options: DeclarationOptions,
    private readonly lookup: Pick<CallLookup, 'permitted'>,
  ) {}

  /** Every tool this client may call, as a code-mode script reaches it. */
  async declaredTools(access: ToolAccess | undefined): Promise<DeclaredTool[]> {
    const out: DeclaredTool[] = [];
    for (const entry of (await this.options.catalog.current()).values()) if (await this.lookup.permitted(entry, access)) out.push(this.declared(entry, access));
    return out;
  }

  /** A tool as code mode declares it to this caller: with the conditions that apply to it. */
  declared(entry: CatalogEntry, access: ToolAccess | undefined): DeclaredTool {
    return withConditions(declaredToolOf(entry, this.options.catalog.separator), this.rulesOf(entry, access));
  }

  /** The conditions that apply to this caller's calls of an entry: the view's, then its own. */
  rulesOf(entry: CatalogEntry, access: ToolAccess | undefined): readonly ConditionRule[] {
    return rulesFor(this.options.conditions, access, entry.name);
  }
}
