import type { RequestHandler } from 'express';

/**
 * Photos and the widget bundle are loaded by agency sites on other origins; helmet's default
 * Cross-Origin-Resource-Policy (same-origin) would block them, so these few routes opt out.
 * Everything else keeps helmet's strict defaults.
 */
export const servedCrossOrigin: RequestHandler = (_req, res, next) => {
  res.set('Cross-Origin-Resource-Policy', 'cross-origin');
  res.set('Access-Control-Allow-Origin', '*');
  next();
};
