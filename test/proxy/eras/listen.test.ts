import { describe, expect, it } from 'vitest';
import { listenedResources } from '../../../src/mcp/http/modern-http.js';
import { listenFilter } from '../../../src/proxy/eras/listen-stream.js';

describe('listenFilter: what mcpkit listens for on a 2026 server', () => {
  it.each([
    ['nothing to hear', {}, [], undefined],
    [
      'list changes the server announces',
      { tools: { listChanged: true }, prompts: { listChanged: true } },
      [],
      { toolsListChanged: true, promptsListChanged: true },
    ],
    ['subscriptions only where the server takes them', { resources: { listChanged: true } }, ['a://x'], { resourcesListChanged: true }],
    ['subscribed resources, sorted', { resources: { subscribe: true } }, ['b://2', 'a://1'], { resourceSubscriptions: ['a://1', 'b://2'] }],
  ])('%s', (_what, capabilities, uris, expected) => {
    expect(listenFilter(capabilities, new Set(uris))).toEqual(expected);
  });
});

describe('listenedResources: the URIs a subscriptions/listen request opts in to', () => {
  it.each([
    [{ method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: ['a://1', 7, 'b://2'] } } }, ['a://1', 'b://2']],
    [{ method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } }, []],
    [{ method: 'tools/call', params: { notifications: { resourceSubscriptions: ['a://1'] } } }, []],
    [undefined, []],
  ])('%j', (body, expected) => {
    expect(listenedResources(body)).toEqual(expected);
  });
});
