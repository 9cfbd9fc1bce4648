// The files of prom-client that ./prom-client-parts.ts loads one by one (each is
// `module.exports = Class`), typed as the package's index types them.
declare module 'prom-client/lib/registry.js' {
  import type { Registry } from 'prom-client';
  const RegistryClass: typeof Registry;
  export default RegistryClass;
}
declare module 'prom-client/lib/counter.js' {
  import type { Counter } from 'prom-client';
  const CounterClass: typeof Counter;
  export default CounterClass;
}
declare module 'prom-client/lib/gauge.js' {
  import type { Gauge } from 'prom-client';
  const GaugeClass: typeof Gauge;
  export default GaugeClass;
}
declare module 'prom-client/lib/histogram.js' {
  import type { Histogram } from 'prom-client';
  const HistogramClass: typeof Histogram;
  export default HistogramClass;
}
