/** Runs at most `concurrency` of the given tasks at once; the rest wait in order. */
export function createLimit(concurrency: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    // A finishing task hands its slot straight to the next waiter, so no newcomer can slip in between.
    if (active >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await task();
    } finally {
      const wake = waiting.shift();
      if (wake) wake();
      else active--;
    }
  };
}
