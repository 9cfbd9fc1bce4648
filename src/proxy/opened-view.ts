import { ToolError } from '../core/errors.js';
import type { OpenedView, ViewCallPort } from '../tool/view-opener.js';
import type { ProxyHub } from './hub.js';

/**
 * What `view_tools` and code mode's tools reach of a served view (tool/view-opener.ts OpenedView),
 * through the hub's roles. Its calls go through `port` alone, the call port the front end opened
 * (never the hub's router around it): without one, a view's tools are not called.
 */
export function openedView(hub: ProxyHub, port?: Pick<ViewCallPort, 'call'>): OpenedView {
  const { catalog } = hub;
  return {
    get view() {
      return hub.view;
    },
    call: port ? (name, args, caller) => port.call(name, args, caller) : (name) => Promise.reject(unported(name)),
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

/** A tool that calls a view's tools run where no front end gave it the port: a fault of mcpkit's, refused. */
function unported(name: string): ToolError {
  return new ToolError('INTERNAL', `mcpkit could not call ${name}: this command runs no calls of a view's tools here.`);
}
