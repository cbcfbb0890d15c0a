/**
 * `npm run test:chaos`: the full enquiry chaos run (see chaos.ts). CHAOS_N enquiries (default 1000),
 * CHAOS_KILLS SIGKILLs of the relay (default 6). Prints the report as JSON; exit code 1 on failure.
 */
import { runChaos } from './chaos.ts';

const n = Number(process.env.CHAOS_N ?? 1000);
const kills = Number(process.env.CHAOS_KILLS ?? 6);
if (!Number.isInteger(n) || n < 1 || !Number.isInteger(kills) || kills < 0) {
  console.error('CHAOS_N must be a positive whole number and CHAOS_KILLS a whole number');
  process.exit(2);
}
const report = await runChaos({
  n,
  kills,
  timeoutMs: Number(process.env.CHAOS_TIMEOUT_MS ?? 30 * 60_000),
  keepDataDir: process.env.CHAOS_KEEP === '1',
  note: (message) => console.error(`[chaos ${new Date().toISOString().slice(11, 19)}] ${message}`),
});
console.log(JSON.stringify({ ...report, missing: report.missing.slice(0, 20), duplicates: report.duplicates.slice(0, 20) }, null, 2));
console.error(
  report.ok
    ? `chaos: OK. ${report.accepted}/${report.n} accepted, each in the CRM exactly once, through ${report.kills} kill -9s.`
    : `chaos: FAILED. missing ${report.missing.length}, duplicates ${report.duplicates.length}, strays ${report.strays}, not accepted ${report.notAccepted}, outbox ${JSON.stringify(report.outbox)}; data kept in ${report.dataDir}`,
);
process.exit(report.ok ? 0 : 1);
