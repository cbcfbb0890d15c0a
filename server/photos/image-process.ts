import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { PhotoDownloadError } from './download.ts';
import type { MadeVariants } from './variant-files.ts';

/** The image process ends once it has had nothing to do (and holds no photo) for this long: its memory goes back to the machine whole. */
const IDLE_EXIT_MS = 15_000;

/** What the relay asks the image process (image-child.ts). */
export type ImageRequest =
  | { op: 'download'; id: number; url: string; hosts: string[]; maxBytes: number; timeoutMs?: number }
  | { op: 'make'; id: number; keptId: number; photoDir: string; widths: number[] }
  | { op: 'drop'; keptId: number }
  | { op: 'abort'; id: number };

/** What it answers: a download kept there (by the request's id), variants made, or why not. */
export type ImageAnswer =
  | { id: number; kept: { hash: string; contentType: string } }
  | { id: number; made: MadeVariants }
  | { id: number; error: { message: string; reason?: PhotoDownloadError['reason']; permanent?: boolean } };

export interface DownloadRequest {
  /** PHOTO_HOSTS: every hop, redirects included, must be on it. */
  hosts: readonly string[];
  /** PHOTO_MAX_BYTES. */
  maxBytes: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * A photo file downloaded into the image process, where its bytes stay: the relay knows only its
 * content hash. Either make its variants (once) or drop it; dropping after making is a no-op.
 */
export interface KeptPhoto {
  hash: string;
  contentType: string;
  makeVariants(photoDir: string, widths: readonly number[]): Promise<MadeVariants>;
  drop(): void;
}

interface Pending {
  resolve(answer: ImageAnswer): void;
}

let child: ChildProcess | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();
/** Downloads the image process holds for the relay (by id): it does not end while any is held. */
const kept = new Set<number>();
let idleTimer: NodeJS.Timeout | undefined;
/**
 * Photos being made at once, for every agency together (each agency's mirror has its own limit:
 * 200 agencies would otherwise queue hundreds of photos' work in the image process).
 */
const making = pLimit(availableParallelism());

/**
 * Photos are downloaded, checked and made into variants by sharp in a process of its own that every
 * agency of the relay shares, started on the first photo and ended IDLE_EXIT_MS after the last.
 *
 * Why not in the relay's process: measured (bench/memory.ts, issue 33), a first sync's photos
 * left the relay 60–130 MB larger for good, in glibc's per-thread malloc arenas of the threads
 * libvips ran on, which glibc keeps rather than returns, plus libvips itself (about 9 MB); and the
 * downloads alone (the response's chunks, the joined file, its copy over IPC) left the relay's
 * malloc heap about 28 MB larger and fragmented (15 MB without photos, 43 MB with 40 listings'
 * photos). Photos are made on sync, never per request, so a process that ends after the sync's
 * photos costs nothing while the relay serves; and a decoder that crashes on a hostile file ends
 * that process, not the relay (its photos are retried by the next sync, as a timeout is).
 */
export async function downloadInImageProcess(url: string, request: DownloadRequest): Promise<KeptPhoto> {
  const id = nextId++;
  const onAbort = () => {
    if (child?.connected) child.send({ op: 'abort', id } satisfies ImageRequest);
  };
  request.signal?.addEventListener('abort', onAbort, { once: true });
  let answer: ImageAnswer;
  try {
    answer = await ask({ op: 'download', id, url, hosts: [...request.hosts], maxBytes: request.maxBytes, timeoutMs: request.timeoutMs });
  } finally {
    request.signal?.removeEventListener('abort', onAbort);
  }
  if (!('kept' in answer)) throw answerError(answer);
  kept.add(id);
  const keptBy = child;
  let used = false;
  const release = () => {
    if (!kept.delete(id)) return;
    if (child === keptBy && child?.connected) child.send({ op: 'drop', keptId: id } satisfies ImageRequest);
    idleWhenDone();
  };
  return {
    ...answer.kept,
    async makeVariants(photoDir, widths) {
      if (used) throw new Error('This photo was already made or dropped.');
      used = true;
      try {
        const made = await making(() => ask({ op: 'make', id: nextId++, keptId: id, photoDir, widths: [...widths] }));
        if (!('made' in made)) throw answerError(made);
        return made.made;
      } finally {
        // The image process let go of the bytes when it made them (or failed to).
        kept.delete(id);
        idleWhenDone();
      }
    },
    drop() {
      used = true;
      release();
    },
  };
}

function ask(request: Exclude<ImageRequest, { op: 'drop' | 'abort' }>): Promise<ImageAnswer> {
  const worker = imageProcess();
  clearTimeout(idleTimer);
  return new Promise<ImageAnswer>((resolve) => {
    pending.set(request.id, { resolve });
    worker.send(request, (error) => {
      if (error) settle({ id: request.id, error: { message: error.message } });
    });
  });
}

function answerError(answer: ImageAnswer): Error {
  if (!('error' in answer)) return new Error('The image process answered out of turn.');
  const { message, reason, permanent } = answer.error;
  return reason ? new PhotoDownloadError(message, reason, permanent ?? false) : new Error(message);
}

function imageProcess(): ChildProcess {
  if (child && child.connected) return child;
  const here = fileURLToPath(import.meta.url);
  // The compiled relay forks the compiled child; from source (tests, tsx) the TypeScript one, through tsx.
  const file = here.slice(0, -extname(here).length).replace(/image-process$/, 'image-child') + extname(here);
  const started = fork(file, [], {
    execArgv: extname(here) === '.ts' ? ['--import', 'tsx'] : [],
    serialization: 'advanced',
    // glibc gives each thread libvips works on a malloc arena of its own and keeps them: two bound the process's peak.
    env: { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  started.on('message', (answer: ImageAnswer) => settle(answer));
  started.on('exit', (code, signal) => {
    if (child === started) child = undefined;
    // What it held is gone with it; what it was doing is done again by the next sync, as after a timeout.
    kept.clear();
    for (const id of [...pending.keys()]) {
      settle({
        id,
        error: { message: `The image process ended (${signal ?? `exit ${code}`}) while working on this photo.`, reason: 'timeout', permanent: false },
      });
    }
  });
  // The relay may exit while it idles: it is not waited for.
  started.unref();
  started.channel?.unref();
  child = started;
  return started;
}

function settle(answer: ImageAnswer): void {
  const waiting = pending.get(answer.id);
  if (!waiting) return;
  pending.delete(answer.id);
  waiting.resolve(answer);
  idleWhenDone();
}

function idleWhenDone(): void {
  if (pending.size > 0 || kept.size > 0) return;
  clearTimeout(idleTimer);
  idleTimer = setTimeout(endImageProcess, IDLE_EXIT_MS);
  idleTimer.unref();
}

/** Ends the image process now (idle, or the relay closing); the next photo starts another. */
export function endImageProcess(): void {
  clearTimeout(idleTimer);
  if (pending.size > 0 || !child) return;
  const ending = child;
  child = undefined;
  kept.clear();
  if (ending.connected) ending.disconnect();
}
