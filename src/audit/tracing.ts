import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';

/**
 * Traces of serve (OpenTelemetry): a server span per request, with the client's W3C trace
 * context (`_meta.traceparent`, `tracestate`; SEP-414) as its parent, and a client span per
 * upstream request, whose context goes to the upstream in `_meta.traceparent`. Only the API is
 * loaded with serve; the SDK and the OTLP exporter load when tracing is turned on
 * (OTEL_EXPORTER_OTLP_ENDPOINT, or serve.tracing), so start-up stays as it is.
 */

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A W3C traceparent's parts; undefined for one that is malformed, version ff, or all zeros. Pure. */
export function parseTraceparent(value: unknown): { traceId: string; spanId: string; traceFlags: number } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags] = match;
  if (version === 'ff' || /^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return undefined;
  return { traceId: traceId!, spanId: spanId!, traceFlags: parseInt(flags!, 16) };
}

/** The traceparent of a span context. Pure. */
export function formatTraceparent(span: { traceId: string; spanId: string; traceFlags: number }): string {
  return `00-${span.traceId}-${span.spanId}-${span.traceFlags.toString(16).padStart(2, '0')}`;
}

/** The spans serve makes; see the module comment. */
export class Tracing {
  private readonly tracer: Tracer;

  constructor(
    private readonly shutdownProvider: () => Promise<void>,
    tracer?: Tracer,
  ) {
    this.tracer = tracer ?? trace.getTracer('mcpkit');
  }

  /**
   * A server span for one request, whose parent is the client's trace context if it sent one:
   * `upstream` makes the child span of each upstream request under it, and `end` closes it, an
   * error (a failure, or a result with isError) marking it so. Begin and end rather than a
   * callback, so that a call answered from a callback (the hot path) is traced as one awaited is.
   */
  begin(
    method: string,
    name: string,
    meta: Record<string, unknown> | undefined,
    attributes: Record<string, string | undefined>,
  ): {
    upstream(method: string, name: string, server: string): { traceparent: string; end(failure?: string): void };
    end(outcome: { result: unknown } | { error: unknown }): void;
  } {
    const remote = parseTraceparent(meta?.traceparent);
    const parent = remote ? trace.setSpanContext(ROOT_CONTEXT, { ...remote, isRemote: true }) : ROOT_CONTEXT;
    const span = this.tracer.startSpan(`${method} ${name}`, { kind: SpanKind.SERVER, attributes: clean({ 'mcp.method.name': method, ...attributes }) }, parent);
    const context = trace.setSpan(parent, span);
    return {
      upstream: (childMethod, childName, server) => this.upstream(context, childMethod, childName, server),
      end: (outcome) => {
        if ('error' in outcome) span.setStatus({ code: SpanStatusCode.ERROR, message: (outcome.error as Error)?.message ?? String(outcome.error) });
        else if ((outcome.result as { isError?: boolean } | undefined)?.isError) span.setStatus({ code: SpanStatusCode.ERROR, message: 'tool error' });
        span.end();
      },
    };
  }

  /** A client span for one upstream request under `parent`: the traceparent that goes to the upstream, and its end. */
  upstream(parent: unknown, method: string, name: string, server: string): { traceparent: string; end(failure?: string): void } {
    const span: Span = this.tracer.startSpan(
      `${method} ${name}`,
      { kind: SpanKind.CLIENT, attributes: { 'mcp.method.name': method, 'gen_ai.tool.name': name, 'server.name': server } },
      parent as Context,
    );
    return {
      traceparent: formatTraceparent(span.spanContext()),
      end: (failure) => {
        if (failure) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
        span.end();
      },
    };
  }

  shutdown(): Promise<void> {
    return this.shutdownProvider();
  }
}

function clean(attributes: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(attributes).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Loads the SDK and an OTLP/HTTP exporter (its endpoint from OTEL_EXPORTER_OTLP_* as the spec says), batching spans. */
export async function startTracing(serviceVersion: string): Promise<Tracing> {
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 500 })] });
  return new Tracing(() => provider.shutdown(), provider.getTracer('mcpkit', serviceVersion));
}
