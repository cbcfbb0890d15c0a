import v8 from 'node:v8';
import vm from 'node:vm';

/** How often the relay looks whether it has gone quiet. */
const CHECK_MS = 10_000;
/**
 * Quiet: under this share of a core used over the last check. A relay of 200 idle agencies uses
 * about 5 % for their timers and stream reads (bench/memory.ts), and must still get its memory back.
 */
const QUIET_SHARE = 0.1;
/**
 * Worth a collection: at least this much CPU (microseconds) spent since the last one. A relay of
 * one idle agency then collects rarely; one of 200 idle agencies (5 % of a core) every 20 s or so.
 */
const WORK_SINCE_LAST_US = 1_000_000;

/**
 * Gives memory back once the relay has gone quiet after work (a sync, a burst of visitors).
 *
 * Measured (bench/memory.ts, issue 33): after a sync V8 keeps its young generation at its largest,
 * 32 MB committed and resident, and its old space at its high-water mark for as long as the relay
 * then idles, which for a small agency is nearly always: its own memory reducer collects but never
 * shrinks the young generation. One full collection made while allocation is low (the relay quiet
 * for a check) lets V8 shrink the young generation to 1 MB and release the old space's free pages.
 * It runs only when the last CHECK_MS used under QUIET_SHARE of a core, and only after work since
 * the last one, so a busy relay is never paused by it and an idle one collects once, not every
 * check. A full collection costs roughly a millisecond per MB of heap in use (tens of ms for one
 * agency, over 100 for 200), paid only while the relay has little else to do.
 *
 * `gc` is V8's own, reached as test runners reach it (the flag, then a context that has it): the
 * relay is started as `node dist/server/main.js`, without --expose-gc.
 */
export function collectWhenIdle(): () => void {
  const collect = exposedGc();
  let lastCpu = totalCpu();
  let workSinceCollection = 0;
  const timer = setInterval(() => {
    const cpu = totalCpu();
    const used = cpu - lastCpu;
    lastCpu = cpu;
    workSinceCollection += used;
    if (used < CHECK_MS * 1000 * QUIET_SHARE && workSinceCollection >= WORK_SINCE_LAST_US) {
      collect();
      workSinceCollection = 0;
      lastCpu = totalCpu();
    }
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

function totalCpu(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

function exposedGc(): () => void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  // Only this module holds it: code evaluated later does not find a global gc.
  v8.setFlagsFromString('--no-expose-gc');
  return gc;
}
