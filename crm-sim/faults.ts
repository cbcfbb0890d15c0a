import { Prng } from './prng.ts';

/**
 * Fault injection per endpoint, for tests and demos of the relay's resilience.
 *
 * A rule's `match` is "METHOD /path" or "/path" (any method). Paths are relative to the API base
 * (`/enquiries`, `/properties/residential/sale/available`) or absolute on the file host
 * (`/files/photos/**`). `*` matches one path segment, `**` any number of them. The first rule that
 * matches a request applies.
 */
export interface FaultRule {
  match: string;
  /** Share of matching requests answered with `errorStatus` (default 500) before being handled. */
  errorRate?: number;
  errorStatus?: number;
  /**
   * With an injected 4xx: the request body's field of this name (top level) is quoted in the error's
   * `msg`, as real validation messages do ("Invalid data: suburbs [{"name":"Atlantis"}] is not
   * accepted", code INVALID_DATA): what a relay must keep out of its logs.
   */
  echoField?: string;
  /** Share answered 429 before being handled (an upstream throttle the client did not cause). */
  rate429?: number;
  /** Retry-After sent with injected 429s, in seconds; null sends none. Default 1. */
  retryAfterSeconds?: number | null;
  /** Delay before handling, in milliseconds. */
  latencyMs?: number;
  /** Share of requests delayed by `slowLatencyMs` instead of `latencyMs` (a slow tail). */
  slowRate?: number;
  /** The slow tail's delay, in milliseconds. */
  slowLatencyMs?: number;
  /** Share of requests that are fully handled (an enquiry is stored) but whose connection is then cut. */
  dropResponseRate?: number;
  /** Apply to this many matching requests, then expire. Unset: until cleared. */
  times?: number;
}

export type FaultDecision =
  | { kind: 'none'; latencyMs: number }
  | { kind: 'error'; status: number; latencyMs: number; echoField?: string }
  | { kind: '429'; retryAfterSeconds: number | null; latencyMs: number }
  | { kind: 'drop'; latencyMs: number };

export class FaultRuleError extends Error {}

const rate = (value: unknown, name: string): number | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new FaultRuleError(`${name} must be a number from 0 to 1`);
  return value;
};

/** Checks a rule given over HTTP; throws FaultRuleError naming the bad field. */
export function parseFaultRule(input: unknown): FaultRule {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new FaultRuleError('a fault rule must be an object');
  const raw = input as Record<string, unknown>;
  if (typeof raw.match !== 'string' || !/^([A-Z]+ )?\/\S*$/.test(raw.match)) {
    throw new FaultRuleError('match must be "METHOD /path" or "/path", e.g. "POST /enquiries"');
  }
  const rule: FaultRule = { match: raw.match };
  const errorRate = rate(raw.errorRate, 'errorRate');
  const rate429 = rate(raw.rate429, 'rate429');
  const dropResponseRate = rate(raw.dropResponseRate, 'dropResponseRate');
  const slowRate = rate(raw.slowRate, 'slowRate');
  if (slowRate !== undefined) rule.slowRate = slowRate;
  if (errorRate !== undefined) rule.errorRate = errorRate;
  if (rate429 !== undefined) rule.rate429 = rate429;
  if (dropResponseRate !== undefined) rule.dropResponseRate = dropResponseRate;
  if ((errorRate ?? 0) + (rate429 ?? 0) > 1) throw new FaultRuleError('errorRate + rate429 must not exceed 1');
  if (raw.errorStatus !== undefined) {
    if (!Number.isInteger(raw.errorStatus) || (raw.errorStatus as number) < 400 || (raw.errorStatus as number) > 599) {
      throw new FaultRuleError('errorStatus must be an HTTP error status (400-599)');
    }
    rule.errorStatus = raw.errorStatus as number;
  }
  if (raw.echoField !== undefined) {
    if (typeof raw.echoField !== 'string' || !/^\w{1,100}$/.test(raw.echoField)) throw new FaultRuleError('echoField must be a field name');
    rule.echoField = raw.echoField;
  }
  if (raw.retryAfterSeconds !== undefined) {
    if (raw.retryAfterSeconds !== null && (!Number.isInteger(raw.retryAfterSeconds) || (raw.retryAfterSeconds as number) < 0)) {
      throw new FaultRuleError('retryAfterSeconds must be a whole number of seconds or null');
    }
    rule.retryAfterSeconds = raw.retryAfterSeconds as number | null;
  }
  if (raw.latencyMs !== undefined) {
    if (typeof raw.latencyMs !== 'number' || !(raw.latencyMs >= 0 && raw.latencyMs <= 120_000)) {
      throw new FaultRuleError('latencyMs must be a number of milliseconds from 0 to 120000');
    }
    rule.latencyMs = raw.latencyMs;
  }
  if (raw.slowLatencyMs !== undefined) {
    if (typeof raw.slowLatencyMs !== 'number' || !(raw.slowLatencyMs >= 0 && raw.slowLatencyMs <= 120_000)) {
      throw new FaultRuleError('slowLatencyMs must be a number of milliseconds from 0 to 120000');
    }
    rule.slowLatencyMs = raw.slowLatencyMs;
  }
  if (raw.times !== undefined) {
    if (!Number.isInteger(raw.times) || (raw.times as number) < 1) throw new FaultRuleError('times must be a positive whole number');
    rule.times = raw.times as number;
  }
  return rule;
}

function compile(pattern: string): RegExp {
  const source = pattern
    .split('/')
    .map((segment) =>
      segment === '**'
        ? '\u0000'
        : segment
            .split('*')
            .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
            .join('[^/]*'),
    )
    .join('/')
    // NUL stands for '**' while the rest is escaped (no path holds one), then becomes its pattern.
    .replaceAll('/\u0000', '(?:/.*)?')
    .replaceAll('\u0000', '.*');
  return new RegExp(`^${source}/?$`);
}

interface CompiledRule {
  rule: FaultRule;
  method: string | null;
  path: RegExp;
  remaining: number;
}

export class FaultInjector {
  private rules: CompiledRule[] = [];
  private readonly rng: Prng;

  constructor(seed: number) {
    this.rng = new Prng(seed ^ 0x0fa17);
  }

  list(): FaultRule[] {
    return this.rules.map(({ rule, remaining }) => (rule.times === undefined ? { ...rule } : { ...rule, times: remaining }));
  }

  set(rules: FaultRule[]): void {
    this.rules = [];
    for (const rule of rules) this.add(rule);
  }

  add(rule: FaultRule): void {
    const [first, second] = rule.match.split(' ');
    const method = second === undefined ? null : first!.toUpperCase();
    const path = second === undefined ? first! : second;
    this.rules.push({ rule: { ...rule }, method, path: compile(path), remaining: rule.times ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.rules = [];
  }

  /** What to do with a request; consumes one use of a rule with `times`. */
  decide(method: string, path: string): FaultDecision {
    const index = this.rules.findIndex((candidate) => (candidate.method === null || candidate.method === method) && candidate.path.test(path));
    if (index === -1) return { kind: 'none', latencyMs: 0 };
    const compiled = this.rules[index]!;
    compiled.remaining--;
    if (compiled.remaining <= 0) this.rules.splice(index, 1);
    const { rule } = compiled;
    const slow = rule.slowRate !== undefined && this.rng.next() < rule.slowRate;
    const latencyMs = slow ? (rule.slowLatencyMs ?? 0) : (rule.latencyMs ?? 0);
    const roll = this.rng.next();
    const errorRate = rule.errorRate ?? 0;
    if (roll < errorRate) return { kind: 'error', status: rule.errorStatus ?? 500, latencyMs, ...(rule.echoField && { echoField: rule.echoField }) };
    if (roll < errorRate + (rule.rate429 ?? 0)) {
      return { kind: '429', retryAfterSeconds: rule.retryAfterSeconds === undefined ? 1 : rule.retryAfterSeconds, latencyMs };
    }
    if (this.rng.next() < (rule.dropResponseRate ?? 0)) return { kind: 'drop', latencyMs };
    return { kind: 'none', latencyMs };
  }
}
