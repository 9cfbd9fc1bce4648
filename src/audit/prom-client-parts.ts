import type * as Prom from 'prom-client';
import CounterClass from 'prom-client/lib/counter.js';
import GaugeClass from 'prom-client/lib/gauge.js';
import HistogramClass from 'prom-client/lib/histogram.js';
import RegistryClass from 'prom-client/lib/registry.js';

/**
 * The four classes of prom-client that ./metrics.ts uses, each from its own file. The package's
 * index loads all of it at once: its default metrics, whose CPU counter requires
 * @opentelemetry/api (44 files read from node_modules, outside serve's code cache: ~40 ms CPU at
 * every `serve --http` start), the push gateway and the cluster aggregator, none of which serve
 * uses. The classes are the same ones the index exports.
 */
export const Counter = CounterClass;
export type Counter<T extends string = string> = Prom.Counter<T>;
export const Gauge = GaugeClass;
export type Gauge<T extends string = string> = Prom.Gauge<T>;
export const Histogram = HistogramClass;
export type Histogram<T extends string = string> = Prom.Histogram<T>;
export const Registry = RegistryClass;
export type Registry = Prom.Registry;
