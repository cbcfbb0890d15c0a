// Loaded into the compiled relay under measurement (`node --import ./bench/memory-probe.mjs
// dist/server/main.js`, forked with an IPC channel) by bench/memory.ts: on the message 'memory' it
// answers with where the process's memory is. Plain JavaScript, as the compiled relay runs under
// plain Node. It loads nothing the relay does not (sharp is read only if the relay loaded it), so
// what it reports is the relay's; its own cost is a listener and this module (well under 1 MB).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import v8 from 'node:v8';

const require = createRequire(import.meta.url);
const MB = 1024 * 1024;
const mb = (bytes) => Math.round((bytes / MB) * 10) / 10;

/** sharp's caches and queue, if the relay has loaded it (it is CommonJS: in require's cache). */
function sharpState() {
  let resolved;
  try {
    resolved = require.resolve('sharp');
  } catch {
    return null;
  }
  const loaded = require.cache[resolved];
  if (!loaded) return { loaded: false };
  const sharp = loaded.exports;
  const cache = sharp.cache();
  return {
    loaded: true,
    cacheMB: mb(cache.memory.current * MB),
    cacheHighMB: mb(cache.memory.high * MB),
    cacheMaxMB: cache.memory.max,
    cacheFiles: cache.files.current,
    cacheItems: cache.items.current,
    concurrency: sharp.concurrency(),
    ...sharp.counters(),
  };
}

/** The kernel's view (Linux): anonymous memory by kind of mapping, file-backed pages, threads. */
function kernelState() {
  let smaps;
  try {
    smaps = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return null;
  }
  const kinds = { brkHeapMB: 0, anonymousMappingsMB: 0, fileBackedMB: 0, stackMB: 0 };
  /** File-backed RSS by file (which code the pages in use are). */
  const files = new Map();
  let kind = 'anonymousMappingsMB';
  let file;
  for (const line of smaps.split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const name = mapping[1];
      kind = name === '[heap]' ? 'brkHeapMB' : name.startsWith('[stack') ? 'stackMB' : name.startsWith('/') ? 'fileBackedMB' : 'anonymousMappingsMB';
      file = kind === 'fileBackedMB' ? name.split('/').pop() : undefined;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    kinds[kind] += Number(rss[1]) / 1024;
    if (file) files.set(file, (files.get(file) ?? 0) + Number(rss[1]) / 1024);
  }
  const largestFiles = Object.fromEntries(
    [...files]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([name, value]) => [name, Math.round(value * 10) / 10]),
  );
  const threads = Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  return Object.fromEntries([
    ...Object.entries(kinds).map(([name, value]) => [name, Math.round(value * 10) / 10]),
    ['threads', threads],
    ['largestFilesMB', largestFiles],
  ]);
}

function report() {
  const usage = process.memoryUsage();
  const heap = v8.getHeapStatistics();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, mb(space.space_used_size)]));
  return {
    rssMB: mb(usage.rss),
    heapTotalMB: mb(usage.heapTotal),
    heapUsedMB: mb(usage.heapUsed),
    externalMB: mb(usage.external),
    arrayBuffersMB: mb(usage.arrayBuffers),
    mallocedMB: mb(heap.malloced_memory),
    nativeContexts: heap.number_of_native_contexts,
    heapSpacesUsedMB: spaces,
    sharp: sharpState(),
    kernel: kernelState(),
    commonJsModules: Object.keys(require.cache).length,
  };
}

process.on('message', (message) => {
  if (message === 'memory') process.send({ memory: report() });
  // A heap snapshot for a closer look (BENCH_MEMORY_SNAPSHOT): what the V8 heap holds, by constructor.
  if (typeof message === 'object' && message?.snapshot) process.send({ snapshot: v8.writeHeapSnapshot(message.snapshot) });
});
// Only the IPC channel's listener: the relay's own handles keep it running, the bench ends it.
process.channel?.unref();
