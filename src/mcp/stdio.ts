import type { PassThrough, Readable, Writable } from 'node:stream';
import type { Transport, RequestId } from '@modelcontextprotocol/server';
import { serveStdio as serveBothEras, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Runtime } from '../app/runtime.js';
import type { ClientEra } from '../proxy/eras/era.js';
import { LeanReadBuffer } from '../core/lean-message.js';
import { afterEachSend, interceptIncoming, replaceStdioReadBuffer } from '../core/sdk-seams.js';
import type { ServeObservers } from './pipeline/call-chain.js';
import type { Dispatcher } from './pipeline/dispatcher.js';
import { sdkServer, type SdkServerOptions } from './pipeline/sdk-server.js';
import { tapOpening, type TappedInput } from './stdio-opening.js';
import { takeToolCalls } from './pipeline/wire-calls.js';

export interface StdioServeOptions {
  runtime: Runtime;
  /** What hears of serve's calls (the audit log, tracing); absent: nothing does (filter run). */
  observers?: ServeObservers;
  hasServers: boolean;
  /** The hub for a client of this era (see ToolServerOptions.hub). */
  hub: (era: ClientEra) => SdkServerOptions['hub'];
  /**
   * The streams the session runs on: the process's stdin and stdout, whose signals end it too;
   * or a pair a test gives, serving in its own process with the same framing and paths.
   */
  streams?: { input: Readable; output: Writable };
  /** Called once, after the answer to the session's first tools/call is written. */
  warm?: () => void;
  /** The input as serve started reading it (./stdio-opening.ts tapOpening); else it is tapped here. */
  input?: TappedInput;
  /**
   * Whether the client's own connections start once its `initialize` is answered (serve.eager, for
   * a client that declared what servers may ask of it: ./stdio-opening.ts, `own`).
   */
  warmOwn?: Promise<boolean>;
}

/**
 * Serves over stdio until the client goes away (stdin closes) or a signal arrives. stdout carries
 * only protocol messages; everything else goes to stderr. Resolves when the session has ended.
 *
 * The SDK's entry decides the era from the client's opening message (initialize for 2025-11-25,
 * server/discover or an enveloped request for 2026-07-28) and pins one server for the connection.
 * A 2025 client's tools/call are taken off the wire (./wire-calls.ts): a 2026 request goes through the SDK, which owns its envelope.
 */
export async function serveStdio({ runtime, observers, hasServers, hub, streams, warm, warmOwn, input: tapped }: StdioServeOptions): Promise<void> {
  const stdin = streams?.input ?? process.stdin;
  // The SDK's transport ends (unanswered requests dropped) the moment stdin ends; a client that
  // closes our stdin is done with us only once every request it sent has its answer
  // (`printf ... | mcpkit serve` gets them all), so the transport reads a copy that ends then.
  const { copy: input, ended: inputEnded } = tapped ?? tapOpening(stdin);
  const transport = new StdioServerTransport(input, streams?.output ?? process.stdout);
  // The client's messages are read once (JSON.parse), not copied again by the SDK's message schema.
  replaceStdioReadBuffer(transport, new LeanReadBuffer());
  let legacy: Dispatcher | undefined;
  const handle = serveBothEras(
    ({ era }) => {
      const { server, dispatcher } = sdkServer({ runtime, hasServers, hub: hub(era), ...(observers ? { observers } : {}) });
      if (era === 'legacy') legacy = dispatcher;
      return server;
    },
    { transport, onerror: (error) => runtime.logger.debug(`serve: ${error.message}`) },
  );
  takeToolCalls(transport, () => legacy);
  // Connections of the client's own need the client connected (what it declared, a way to ask it):
  // they start once its initialize succeeded, not at serve's start with the shared ones, which it
  // would not use (each server would run twice).
  const warmed =
    warmOwn && hasServers
      ? () =>
          void warmOwn
            .then((own) => (own ? legacy?.warm() : undefined))
            .catch((error: unknown) => runtime.logger.debug(`serve: starting the servers: ${String(error)}`))
      : undefined;
  const answered = trackAnswers(transport, warm, warmed);
  let done!: () => void;
  const ended = new Promise<void>((resolve) => (done = resolve));
  let closing: Promise<void> | undefined;
  const shutdown = (why: string) => {
    runtime.logger.debug(`serve: shutting down (${why})`);
    return (closing ??= handle
      .close()
      .catch(() => undefined)
      .then(done));
  };
  const previous = transport.onclose;
  transport.onclose = () => {
    previous?.();
    void shutdown('the connection closed');
  };
  if (!streams) {
    process.once('SIGINT', () => void shutdown('SIGINT'));
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
  }
  // What the client wrote before it closed is read first: with the input read from serve's start
  // (./stdio-opening.ts), it may have ended before the transport read a line of it.
  void inputEnded
    .then(() => readAll(input, () => closing !== undefined))
    .then(() => answered())
    .then(() => shutdown('stdin closed'));
  runtime.logger.debug('serve: ready on stdio');
  await ended;
}

/** Resolves once the transport has taken everything the copy of the input holds, or no longer reads it (it closed), or the session ends. */
async function readAll(copy: PassThrough, ending: () => boolean): Promise<void> {
  while (copy.readableLength > 0 && copy.listenerCount('data') > 0 && !ending()) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Counts the client's requests still without an answer (a cancelled one needs none). Returns a
 * function whose promise settles when none is left. `warm` hears of the first tools/call's answer,
 * `initialized` of the first initialize answered with a result (not an error).
 */
function trackAnswers(transport: Transport, warm?: () => void, initialized?: () => void): () => Promise<void> {
  const open = new Set<RequestId>();
  const initializes = new Set<RequestId>();
  let idle: (() => void) | undefined;
  let firstCall: RequestId | undefined;
  let toWarm = warm;
  let toInitialize = initialized;
  const settle = () => {
    if (open.size === 0) idle?.();
  };
  interceptIncoming(transport, (message, extra, sdk) => {
    const m = message as { id?: RequestId; method?: string; params?: { requestId?: RequestId } };
    if (m.method !== undefined && m.id !== undefined) open.add(m.id);
    if (toInitialize && m.method === 'initialize' && m.id !== undefined) initializes.add(m.id);
    if (toWarm && firstCall === undefined && m.method === 'tools/call' && m.id !== undefined) firstCall = m.id;
    if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined) open.delete(m.params.requestId);
    sdk?.(message, extra);
    settle();
  });
  afterEachSend(transport, (message) => {
    const m = message as { id?: RequestId; method?: string; result?: unknown };
    if (m.method === undefined && m.id !== undefined) open.delete(m.id);
    // An initialize's id is forgotten at its answer: a later request may use it again.
    if (m.method === undefined && m.id !== undefined && initializes.delete(m.id) && m.result !== undefined && toInitialize) {
      const heard = toInitialize;
      toInitialize = undefined;
      heard();
    }
    if (toWarm && firstCall !== undefined && m.method === undefined && m.id === firstCall) {
      const heard = toWarm;
      toWarm = undefined;
      heard();
    }
    settle();
  });
  return () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve)));
}
