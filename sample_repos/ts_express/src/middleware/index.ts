import { NextFunction, Request, Response } from 'express';
import { HttpError, ValidationError } from '../errors';
import * as log from '../utils/logger';

/** Logs method, path, status and duration of every request once it finished. */
export function requestLogger(req: Request, res: Response, next: NextFunction): void {
  const started = Date.now();
  res.on('finish', () => {
    log.info(`${req.method} ${req.originalUrl} ${res.statusCode} ${Date.now() - started}ms`);
  });
  next();
}

/** Rejects write requests whose body is not JSON. */
export function requireJson(req: Request, _res: Response, next: NextFunction): void {
  if (!req.is('application/json')) {
    next(new ValidationError('expected a JSON body'));
    return;
  }
  next();
}

/**
 * Turns errors into JSON answers: HttpErrors keep their status, anything else is
 * logged and answered with 500.
 */
export function errorHandler(err: Error, _req: Request, res: Response, _next: NextFunction,
): void {
  if (err instanceof HttpError) {
    res.status(err.status).json({ error: err.message });
    return;
  }
  log.error('unexpected error', err);
  res.status(500).json({ error: 'internal server error' });
}
