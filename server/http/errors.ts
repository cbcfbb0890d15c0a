import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { ErrorBody } from '../../contract/relay-api.ts';
import type { Logger } from '../runtime/log.ts';

/** The one error type handlers throw: carries the HTTP status and the public body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message, ...(this.fields ? { fields: this.fields } : {}) };
  }
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new HttpError(404, 'not_found', `Nothing at ${req.method} ${req.path}`));
};

/** Turns body-parser and other framework errors into the public error shape. */
function fromFrameworkError(error: unknown): HttpError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, status } = error as { type?: string; status?: number };
  if (type === 'entity.too.large') return new HttpError(413, 'payload_too_large', 'The request body is too large.');
  if (type === 'entity.parse.failed') return new HttpError(400, 'invalid_json', 'The request body is not valid JSON.');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new HttpError(415, 'unsupported_encoding', 'The request body encoding is not supported.');
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new HttpError(status, 'bad_request', 'The request could not be read.');
  }
  return undefined;
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const known = error instanceof HttpError ? error : fromFrameworkError(error);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (known) {
      if (known.headers) res.set(known.headers);
      res.status(known.status).json(known.toBody());
      return;
    }
    log.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    res.status(500).json({ error: 'internal', message: 'Something went wrong on our side.' } satisfies ErrorBody);
  };
}
