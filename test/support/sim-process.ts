/**
 * The CRM simulator in a process of its own, for runs where the relay is busy enough to delay a
 * shared event loop: the simulator's per-second counter stamps a request when its handler runs,
 * so in one process a relay's busy moment would bunch arrivals that were spread out on the wire.
 *
 * Forked with the simulator's options as JSON in argv[2]; answers over IPC with
 * `{ origin, baseUrl, apiKey, startSeconds, heapMiB }` once it listens, and exits on 'stop'.
 */
import { startSimulator, type SimulatorOptions } from '../../crm-sim/simulator.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as SimulatorOptions;
const heapBefore = process.memoryUsage().heapUsed;
const startedAt = performance.now();
const sim = await startSimulator(options);
const startSeconds = (performance.now() - startedAt) / 1000;
const heapMiB = Math.round((process.memoryUsage().heapUsed - heapBefore) / 2 ** 20);
process.send!({ origin: sim.origin, baseUrl: sim.baseUrl, apiKey: sim.apiKey, startSeconds, heapMiB });
process.on('message', async (message) => {
  if (message !== 'stop') return;
  await sim.close();
  process.exit(0);
});
// The parent went away without saying stop: do not linger.
process.on('disconnect', () => process.exit(0));
