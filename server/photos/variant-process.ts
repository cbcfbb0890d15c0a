import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { PhotoDownloadError } from './download.ts';
import type { MadeVariants } from './variant-files.ts';

/** The image process ends once it has had nothing to do for this long: its memory goes back to the machine whole. */
const IDLE_EXIT_MS = 15_000;

/** A photo's work as the image process answers it (variant-child.ts). */
export type VariantAnswer =
  { id: number; made: MadeVariants } | { id: number; error: { message: string; reason?: PhotoDownloadError['reason']; permanent?: boolean } };

interface Pending {
  resolve(made: MadeVariants): void;
  reject(error: Error): void;
}

let child: ChildProcess | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();
let idleTimer: NodeJS.Timeout | undefined;
/**
 * Photos in the image process at once, for every agency together (each agency's mirror has its
 * own limit: 200 agencies would otherwise queue hundreds of photos' bytes in both processes).
 */
const inProcess = pLimit(availableParallelism());

/**
 * makeVariants (variants.ts), run by sharp in a process of its own that every agency of the relay
 * shares, started on the first photo and ended IDLE_EXIT_MS after the last.
 *
 * Why not in the relay's process: measured (bench/memory.ts, issue 33), a first sync's photos
 * left the relay 60–130 MB larger for good, in glibc's per-thread malloc arenas of the threads
 * libvips ran on, which glibc keeps rather than returns, plus libvips itself (about 9 MB). Photos
 * are made on sync, never per request, so a process that ends after the sync's photos costs
 * nothing while the relay serves; and a decoder that crashes on a hostile file ends that process,
 * not the relay (its photos are retried by the next sync, as a timeout is).
 */
export function makeVariants(bytes: Buffer, hash: string, photoDir: string, widths: readonly number[]): Promise<MadeVariants> {
  return inProcess(() => sendToImageProcess(bytes, hash, photoDir, widths));
}

function sendToImageProcess(bytes: Buffer, hash: string, photoDir: string, widths: readonly number[]): Promise<MadeVariants> {
  const worker = imageProcess();
  clearTimeout(idleTimer);
  const id = nextId++;
  return new Promise<MadeVariants>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.send({ id, bytes, hash, photoDir, widths: [...widths] }, (error) => {
      if (error) settle(id, { id, error: { message: error.message } });
    });
  });
}

function imageProcess(): ChildProcess {
  if (child && child.connected) return child;
  const here = fileURLToPath(import.meta.url);
  // The compiled relay forks the compiled child; from source (tests, tsx) the TypeScript one, through tsx.
  const file = here.slice(0, -extname(here).length).replace(/variant-process$/, 'variant-child') + extname(here);
  const started = fork(file, [], {
    execArgv: extname(here) === '.ts' ? ['--import', 'tsx'] : [],
    serialization: 'advanced',
    // glibc gives each thread libvips works on a malloc arena of its own and keeps them: two bound the process's peak.
    env: { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  started.on('message', (answer: VariantAnswer) => settle(answer.id, answer));
  started.on('exit', (code, signal) => {
    if (child === started) child = undefined;
    // Whatever it was making is made again by the next sync, as after a timeout.
    for (const id of [...pending.keys()]) {
      settle(id, {
        id,
        error: { message: `The image process ended (${signal ?? `exit ${code}`}) while making this photo's variants.`, reason: 'timeout', permanent: false },
      });
    }
  });
  // The relay may exit while it idles: it is not waited for.
  started.unref();
  started.channel?.unref();
  child = started;
  return started;
}

function settle(id: number, answer: VariantAnswer): void {
  const waiting = pending.get(id);
  if (!waiting) return;
  pending.delete(id);
  if ('made' in answer) waiting.resolve(answer.made);
  else {
    const { message, reason, permanent } = answer.error;
    waiting.reject(reason ? new PhotoDownloadError(message, reason, permanent ?? false) : new Error(message));
  }
  if (pending.size === 0) {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(endImageProcess, IDLE_EXIT_MS);
    idleTimer.unref();
  }
}

/** Ends the image process now (idle, or the relay closing); the next photo starts another. */
export function endImageProcess(): void {
  clearTimeout(idleTimer);
  if (pending.size > 0 || !child) return;
  const ending = child;
  child = undefined;
  if (ending.connected) ending.disconnect();
}
