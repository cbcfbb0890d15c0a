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
 * Or, after a little work (WORK_FOR_SLACK_US: an idle relay of one agency uses about 20 ms a check
 * for its timers), V8's heap committed beyond what the last collection left live, by at least
 * HEAP_SLACK_BYTES and a quarter of the heap live. A burst of visitors costs little CPU (a hundred
 * answers and pages, under a second), and a sync whose photos are made in the image process not
 * much more, but either leaves the young generation grown (measured: 52 MB committed for 37 used,
 * about 18 MB of RSS, after 102 requests). V8 may keep the pages anyway (a collection made while
 * work still went on): so at most one such collection every SLACK_SPACING_MS.
 */
const HEAP_SLACK_BYTES = 8 * 1024 * 1024;
const WORK_FOR_SLACK_US = 30_000;
const SLACK_SPACING_MS = 30_000;

/**
 * Gives memory back once the relay has gone quiet after work (a sync, a burst of visitors).
 *
 * Measured (bench/memory.ts, issue 33): after a sync V8 keeps its young generation at its largest,
 * 32 MB committed and resident, and its old space at its high-water mark for as long as the relay
 * then idles, which for a small agency is nearly always: its own memory reducer collects but never
 * shrinks the young generation. One full collection made while allocation is low (the relay quiet
 * for a check) lets V8 shrink the young generation to 1 MB and release the old space's free pages.
 * It runs only when the last CHECK_MS used under QUIET_SHARE of a core, and only after work since
 * the last one (CPU spent, or a little and the heap grown), so a busy relay is never paused by it and an idle one collects once, not every
 * check. A full collection costs roughly a millisecond per MB of heap in use (tens of ms for one
 * agency, over 100 for 200), paid only while the relay has little else to do.
 *
 * `gc` is V8's own, reached as test runners reach it (the flag, then a context that has it): the
 * relay is started as `node dist/server/main.js`, without --expose-gc.
 */
export function collectWhenIdle(options: { checkMs?: number; collect?: () => void } = {}): () => void {
  const checkMs = options.checkMs ?? CHECK_MS;
  const collect = options.collect ?? exposedGc();
  let lastCpu = totalCpu();
  let workSinceCollection = 0;
  let live = process.memoryUsage().heapUsed;
  let lastCollection = 0;
  const timer = setInterval(() => {
    const cpu = totalCpu();
    const used = cpu - lastCpu;
    lastCpu = cpu;
    workSinceCollection += used;
    const { heapTotal } = process.memoryUsage();
    const forWork = workSinceCollection >= WORK_SINCE_LAST_US;
    const forSlack =
      workSinceCollection >= WORK_FOR_SLACK_US &&
      heapTotal - live >= Math.max(HEAP_SLACK_BYTES, live / 4) &&
      Date.now() - lastCollection >= Math.max(SLACK_SPACING_MS, checkMs);
    if (used < checkMs * 1000 * QUIET_SHARE && (forWork || forSlack)) {
      collect();
      live = process.memoryUsage().heapUsed;
      lastCollection = Date.now();
      workSinceCollection = 0;
      lastCpu = totalCpu();
    }
  }, checkMs);
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
