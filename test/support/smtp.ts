import { afterAll, beforeAll } from 'vitest';
import { startMailCatcher, type MailCatcher, type MailCatcherOptions } from '../../crm-sim/mail-catcher.ts';

export type { CaughtMail, MailCatcher } from '../../crm-sim/mail-catcher.ts';
export { startMailCatcher } from '../../crm-sim/mail-catcher.ts';

/**
 * A real SMTP server on loopback for a test file (the simulator's mail catcher): started before
 * the file's tests, closed after them. Read `.current` inside a test (or a beforeAll after this one).
 */
export function smtpServerForFile(options: MailCatcherOptions = {}): { readonly current: MailCatcher } {
  let catcher: MailCatcher | undefined;
  beforeAll(async () => {
    catcher = await startMailCatcher(options);
  });
  afterAll(async () => {
    await catcher?.close();
  });
  return {
    get current(): MailCatcher {
      if (!catcher) throw new Error('the SMTP server starts in beforeAll: read it inside a test');
      return catcher;
    },
  };
}
