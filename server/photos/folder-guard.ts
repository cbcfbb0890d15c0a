/**
 * Keeps a photo folder shared by several mirrors (agencies on one relay) from losing a file one
 * mirror is about to record while another cleans up. A mirror claims an image's hash before it
 * looks at or writes the image's files and holds it until its row is written; a clean-up pass
 * deletes no claimed image's files. Claims wait for a pass under way, and passes run one at a
 * time, so "checked free, then deleted" never straddles a claim. (One process: the relay; the
 * operator CLI never cleans a folder while the relay runs.)
 */
export class PhotoFolderGuard {
  private readonly claims = new Map<string, number>();
  private pass: Promise<unknown> = Promise.resolve();

  /** Waits for a clean-up pass under way, then holds `hash` until the returned release is called (once). */
  async claim(hash: string): Promise<() => void> {
    await this.pass.catch(() => undefined);
    this.claims.set(hash, (this.claims.get(hash) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.claims.get(hash) ?? 1) - 1;
      if (left > 0) this.claims.set(hash, left);
      else this.claims.delete(hash);
    };
  }

  /** Whether a mirror holds `hash` right now. */
  isClaimed(hash: string): boolean {
    return this.claims.has(hash);
  }

  /** Runs `clean` as the one pass under way (after any earlier one): claims made meanwhile wait for it. */
  clean<T>(clean: () => Promise<T>): Promise<T> {
    const run = this.pass.catch(() => undefined).then(clean);
    this.pass = run;
    return run;
  }
}
