import type { Request } from 'express';
import { parseDateTime } from './time.ts';

/** Query-string reading with the CRM's conventions and a 400 naming the parameter when it is bad. */

export class QueryError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

export const DEFAULT_PAGE_SIZE = 50;
/** Larger page sizes are clamped to this (the published default is 50; integrators use 100). */
export const MAX_PAGE_SIZE = 100;

type Query = Request['query'];

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length !== 1 || typeof value[0] !== 'string') throw new QueryError(name, `${name} must be given once`);
    return value[0];
  }
  if (typeof value !== 'string') throw new QueryError(name, `${name} is not a plain value`);
  return value;
}

export function intParam(query: Query, name: string, { min = 1 }: { min?: number } = {}): number | undefined {
  const value = single(query, name);
  if (value === undefined || value === '') return undefined;
  if (!/^-?\d+$/.test(value.trim()) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new QueryError(name, `${name} must be a whole number${min === 1 ? ' of 1 or more' : ''}`);
  }
  return Number(value);
}

export function boolParam(query: Query, name: string): boolean | undefined {
  const value = single(query, name);
  if (value === undefined || value === '') return undefined;
  const lower = value.trim().toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw new QueryError(name, `${name} must be true or false`);
}

export function dateParam(query: Query, name: string): number | undefined {
  const value = single(query, name);
  if (value === undefined || value === '') return undefined;
  const ms = parseDateTime(value);
  if (ms === undefined) {
    // A '+' left unencoded in the query string arrives as a space.
    const hint = /\d \d{2}:?\d{2}$/.test(value) ? ' (encode "+" in the offset as %2B)' : '';
    throw new QueryError(name, `${name} must be a DateTime such as 2024-03-25T01:40:27+00:00${hint}`);
  }
  return ms;
}

export function enumParam<T extends string>(query: Query, name: string, allowed: readonly T[]): T | undefined {
  const value = single(query, name);
  if (value === undefined || value === '') return undefined;
  if (!allowed.includes(value as T)) throw new QueryError(name, `${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function stringParam(query: Query, name: string): string | undefined {
  const value = single(query, name);
  return value === undefined || value === '' ? undefined : value;
}

/** Lists are comma-separated (`status=listing,conditional`) or repeated. */
export function listParam(query: Query, name: string): string[] | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((part) => {
    if (typeof part !== 'string') throw new QueryError(name, `${name} is not a plain list`);
    return part.split(',');
  });
  const items = parts.map((part) => part.trim()).filter(Boolean);
  return items.length > 0 ? items : undefined;
}

export function intListParam(query: Query, name: string): number[] | undefined {
  const items = listParam(query, name);
  if (!items) return undefined;
  return items.map((item) => {
    if (!/^-?\d+$/.test(item)) throw new QueryError(name, `${name} must be a comma-separated list of ids`);
    return Number(item);
  });
}

export interface Paging {
  page: number;
  pagesize: number;
}

export function pagingParams(query: Query): Paging {
  const page = intParam(query, 'page') ?? 1;
  const requested = intParam(query, 'pagesize') ?? DEFAULT_PAGE_SIZE;
  return { page, pagesize: Math.min(requested, MAX_PAGE_SIZE) };
}

export interface ListEnvelope<T> {
  items: T[];
  totalItems: number;
  totalPages: number;
  urls: { previous: string | null; next: string | null; self: string };
}

/** The origin a request came in on, so URLs in responses point back at this simulator. */
export function requestOrigin(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? '127.0.0.1'}`;
}

/** One page of `items` in the CRM's list envelope, with absolute previous/next/self URLs. */
export function paginate<T, R>(req: Request, items: T[], paging: Paging, render: (item: T) => R): ListEnvelope<R> {
  const totalItems = items.length;
  const totalPages = Math.ceil(totalItems / paging.pagesize);
  const start = (paging.page - 1) * paging.pagesize;
  const pageUrl = (page: number) => {
    const url = new URL(req.originalUrl, requestOrigin(req));
    url.searchParams.set('page', String(page));
    url.searchParams.set('pagesize', String(paging.pagesize));
    return url.toString();
  };
  return {
    items: items.slice(start, start + paging.pagesize).map(render),
    totalItems,
    totalPages,
    urls: {
      previous: paging.page > 1 && totalPages > 0 ? pageUrl(Math.min(paging.page - 1, totalPages)) : null,
      next: paging.page < totalPages ? pageUrl(paging.page + 1) : null,
      self: new URL(req.originalUrl, requestOrigin(req)).toString(),
    },
  };
}
