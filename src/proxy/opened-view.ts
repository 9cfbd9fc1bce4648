import type { OpenedView } from '../tool/context.js';
import type { ProxyHub } from './hub.js';

/** What `view_tools` and code mode's tools reach of a served view (tool/context.ts OpenedView), through the hub's roles. */
export function openedView(hub: ProxyHub): OpenedView {
  const { catalog, calls } = hub;
  return {
    get view() {
      return hub.view;
    },
    call: (name, args, context) => calls.call(name, args, context),
    codeTools: () => catalog.codeTools(),
    codeLimits: () => catalog.codeLimits(),
    list: () => catalog.list(),
    exposurePlan: () => catalog.exposurePlan(),
    catalogTools: () => catalog.catalogTools(),
    status: () => hub.status(),
    withheldTools: () => catalog.withheldTools(),
    hiddenTools: () => catalog.hiddenTools(),
  };
}
