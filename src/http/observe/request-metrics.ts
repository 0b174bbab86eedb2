// The two metrics every request adds to: archivectl_http_requests_total (by method, route
// template and status) and archivectl_http_request_duration_seconds (a histogram by method and
// route template). They are counted here in plain numbers per label set and written out by
// prom-client's registry when /metrics is read. prom-client's own Counter and Histogram check
// and hash their labels on every inc() and observe(), on every request; counted here, a
// catalogue list costs 1-2 % less CPU (bench/RESULTS.md, "Request path, fifth pass"). The lines
// /metrics writes are the ones prom-client's own metrics gave.
import { Counter, type Metric, type Registry } from 'prom-client';

/** Upper bounds of the duration buckets, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface Answered {
  labels: { method: string; route: string; status: string };
  count: number;
}

interface Timed {
  labels: { method: string; route: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last counts those above every bound. */
  perBucket: number[];
}

/** The index of the first bucket whose bound is at least `seconds` (DURATION_BUCKETS.length: none). */
function bucketOf(seconds: number): number {
  let i = 0;
  while (i < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[i] as number)) i++;
  return i;
}

export class RequestMetrics {
  private readonly answered = new Map<string, Answered>();
  private readonly timed = new Map<string, Timed>();

  /** Registers both metrics in `registry`. */
  constructor(registry: Registry) {
    const answered = this.answered;
    // A counter prom-client can be handed in bulk: it takes the counts when it is read.
    new Counter({
      name: 'archivectl_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
      collect() {
        this.reset();
        for (const a of answered.values()) this.inc(a.labels, a.count);
      },
    });
    // A histogram it cannot (no way to set bucket counts): a metric of our own, a plain object
    // with what its registry reads of every metric (name, help, type, aggregator, get()).
    const durations = {
      name: 'archivectl_http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by method and route template',
      type: 'histogram',
      aggregator: 'sum',
    };
    registry.registerMetric({
      ...durations,
      get: () => ({
        ...durations,
        values: [...this.timed.values()].flatMap((t) => histogramValues(durations.name, t)),
      }),
      reset: () => this.timed.clear(),
    } as unknown as Metric);
  }

  /** One answered request. Methods, route templates and statuses are few: the label sets stay bounded. */
  observe(method: string, route: string, status: number, seconds: number): void {
    const byRoute = `${method} ${route}`;
    const key = `${byRoute} ${status}`;
    let answered = this.answered.get(key);
    if (!answered) this.answered.set(key, (answered = { labels: { method, route, status: String(status) }, count: 0 }));
    answered.count++;
    let timed = this.timed.get(byRoute);
    if (!timed) {
      timed = {
        labels: { method, route },
        count: 0,
        sum: 0,
        perBucket: new Array<number>(DURATION_BUCKETS.length + 1).fill(0),
      };
      this.timed.set(byRoute, timed);
    }
    timed.count++;
    timed.sum += seconds;
    (timed.perBucket[bucketOf(seconds)] as number)++;
  }
}

/** A label set's lines as prom-client writes a histogram's: cumulative buckets, +Inf, sum, count. */
function histogramValues(name: string, t: Timed) {
  let cumulative = 0;
  const buckets = DURATION_BUCKETS.map((le, i) => {
    cumulative += t.perBucket[i] as number;
    return { labels: { le, ...t.labels }, value: cumulative, metricName: `${name}_bucket` };
  });
  return [
    ...buckets,
    { labels: { le: '+Inf', ...t.labels }, value: t.count, metricName: `${name}_bucket` },
    { labels: t.labels, value: t.sum, metricName: `${name}_sum` },
    { labels: t.labels, value: t.count, metricName: `${name}_count` },
  ];
}
