/**
 * A small Prometheus registry: counters, gauges and histograms with labels, rendered in the text
 * exposition format 0.0.4. Values live in this process (one node); Prometheus scrapes each node.
 */

export type Labels = Record<string, string>;

/** A label value or a help text, escaped for the exposition format. */
const escapeLabel = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
const escapeHelp = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

function labelText(names: readonly string[], values: readonly string[], extra?: [string, string]): string {
  const pairs = names.map((n, i) => `${n}="${escapeLabel(values[i] ?? "")}"`);
  if (extra) pairs.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return pairs.length ? `{${pairs.join(",")}}` : "";
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

abstract class Metric<L extends string> {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
  ) {
    if (!NAME.test(name)) throw new Error(`bad metric name ${name}`);
    for (const l of labelNames) if (!LABEL.test(l) || l === "le") throw new Error(`bad label name ${l}`);
  }
  abstract readonly type: "counter" | "gauge" | "histogram";
  protected key(labels: Partial<Record<L, string>> | undefined): string[] {
    return this.labelNames.map((n) => String(labels?.[n] ?? ""));
  }
  abstract lines(): string[] | Promise<string[]>;
  async render(): Promise<string> {
    return [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`, ...(await this.lines())].join("\n");
  }
}

export class Counter<L extends string = never> extends Metric<L> {
  readonly type = "counter";
  private values = new Map<string, { labels: string[]; value: number }>();
  inc(labels?: Partial<Record<L, string>>, by = 1): void {
    if (!(by >= 0)) throw new Error("a counter only goes up");
    const values = this.key(labels);
    const k = JSON.stringify(values);
    const entry = this.values.get(k) ?? { labels: values, value: 0 };
    entry.value += by;
    this.values.set(k, entry);
  }
  get(labels?: Partial<Record<L, string>>): number {
    return this.values.get(JSON.stringify(this.key(labels)))?.value ?? 0;
  }
  lines(): string[] {
    if (!this.values.size && !this.labelNames.length) return [`${this.name} 0`];
    return [...this.values.values()].map((e) => `${this.name}${labelText(this.labelNames, e.labels)} ${formatValue(e.value)}`);
  }
}

export class Gauge<L extends string = never> extends Metric<L> {
  readonly type = "gauge";
  private values = new Map<string, { labels: string[]; value: number }>();
  /** read when scraped (e.g. the database's size); its rows replace the set values */
  constructor(name: string, help: string, labelNames: readonly L[], private collect?: () => Promise<{ labels?: Partial<Record<L, string>>; value: number }[]>) {
    super(name, help, labelNames);
  }
  set(labels: Partial<Record<L, string>> | undefined, value: number): void {
    const values = this.key(labels);
    this.values.set(JSON.stringify(values), { labels: values, value });
  }
  async lines(): Promise<string[]> {
    if (this.collect) {
      for (const row of await this.collect()) this.set(row.labels, row.value);
    }
    return [...this.values.values()].map((e) => `${this.name}${labelText(this.labelNames, e.labels)} ${formatValue(e.value)}`);
  }
}

export class Histogram<L extends string = never> extends Metric<L> {
  readonly type = "histogram";
  private values = new Map<string, { labels: string[]; counts: number[]; sum: number; count: number }>();
  constructor(name: string, help: string, labelNames: readonly L[], readonly buckets: readonly number[]) {
    super(name, help, labelNames);
    if (!buckets.length || buckets.some((b, i) => i > 0 && b <= buckets[i - 1]!)) throw new Error("buckets must increase");
  }
  observe(labels: Partial<Record<L, string>> | undefined, value: number): void {
    const values = this.key(labels);
    const k = JSON.stringify(values);
    let entry = this.values.get(k);
    if (!entry) this.values.set(k, (entry = { labels: values, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    this.buckets.forEach((b, i) => {
      if (value <= b) entry!.counts[i]!++;
    });
    entry.sum += value;
    entry.count++;
  }
  /** starts a timer; calling the result observes the seconds since */
  startTimer(labels?: Partial<Record<L, string>>): (more?: Partial<Record<L, string>>) => number {
    const t0 = performance.now();
    return (more) => {
      const seconds = (performance.now() - t0) / 1000;
      this.observe({ ...labels, ...more } as Partial<Record<L, string>>, seconds);
      return seconds;
    };
  }
  count(labels?: Partial<Record<L, string>>): number {
    return this.values.get(JSON.stringify(this.key(labels)))?.count ?? 0;
  }
  lines(): string[] {
    const out: string[] = [];
    for (const e of this.values.values()) {
      this.buckets.forEach((b, i) => out.push(`${this.name}_bucket${labelText(this.labelNames, e.labels, ["le", formatValue(b)])} ${e.counts[i]}`));
      out.push(`${this.name}_bucket${labelText(this.labelNames, e.labels, ["le", "+Inf"])} ${e.count}`);
      out.push(`${this.name}_sum${labelText(this.labelNames, e.labels)} ${formatValue(e.sum)}`);
      out.push(`${this.name}_count${labelText(this.labelNames, e.labels)} ${e.count}`);
    }
    return out;
  }
}

export class Registry {
  private metrics: Metric<string>[] = [];
  register<M extends Metric<any>>(metric: M): M {
    if (this.metrics.some((m) => m.name === metric.name)) throw new Error(`metric ${metric.name} registered twice`);
    this.metrics.push(metric as unknown as Metric<string>);
    return metric;
  }
  async render(): Promise<string> {
    const parts: string[] = [];
    for (const m of this.metrics) parts.push(await m.render());
    return `${parts.join("\n")}\n`;
  }
}

export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
