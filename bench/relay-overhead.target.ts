/**
 * Child process of relay-overhead.ts: hosts the two servers under test, so that autocannon (in
 * the parent) and the servers do not share one event loop.
 * - the relay as main.ts runs it (startRelay, demo mode, workers off so no sync traffic);
 * - a bare node:http server answering the bytes the relay answers on /healthz.
 * Prints nothing; reports its URLs over IPC and stops on the message 'stop'.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../server/runtime/config.ts';
import { silentLogger } from '../server/runtime/log.ts';
import { startRelay } from '../server/compose/relay.ts';
import { headerBytes, listenBaseline } from './support.ts';

const ENDPOINT = '/healthz';

const dataDir = mkdtempSync(join(tmpdir(), 'estate-bench-relay-'));
// Logging off on both sides: the figure is about the HTTP stack, and pino at 'info' would write
// nothing per request anyway unless request logging is added (then this is the line to revisit).
const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SIM_LISTINGS: '10' });
const relay = await startRelay(config, { log: silentLogger, workers: false });

const probe = await fetch(`${relay.url}${ENDPOINT}`);
if (!probe.ok) throw new Error(`relay ${ENDPOINT} answered ${probe.status}`);
const body = Buffer.from(await probe.arrayBuffer());
const contentType = probe.headers.get('content-type') ?? 'application/json';

const baseline = await listenBaseline((_req, res) => {
  res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': body.length });
  res.end(body);
});

process.send!({
  relayUrl: `${relay.url}${ENDPOINT}`,
  baselineUrl: `${baseline.origin}${ENDPOINT}`,
  bodyBytes: body.length,
  relayHeaderBytes: headerBytes(probe.headers),
});

process.on('message', async (message) => {
  if (message !== 'stop') return;
  await Promise.all([baseline.close(), relay.close()]);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
// The parent died: do not linger.
process.on('disconnect', () => process.exit(0));
