/**
 * What the relay's features send e-mail through (today: the saved searches' confirmation). A
 * feature builds its message in its own words; the mailer adds the sender (MAIL_FROM, or the
 * agency's `mailFrom`) and delivers it over SMTP (smtp-mailer.ts). Never logs an address or a body.
 */

export interface MailMessage {
  /** One recipient: the address the visitor gave. */
  to: string;
  subject: string;
  /** The plain-text body (always sent: every client reads it). */
  text: string;
  /** The same words as HTML, when the feature has them. */
  html?: string;
  /** Extra headers (List-Unsubscribe, Auto-Submitted, ...). */
  headers?: Record<string, string>;
}

export interface Mailer {
  /**
   * Delivers one message to the SMTP server, resolving once the server took it (250 after DATA).
   * Rejects with a MailError: `retryable` when a later try may work (connection refused, timeout,
   * 4xx), not when the server refused the message or recipient for good (5xx).
   */
  send(message: MailMessage, options?: { signal?: AbortSignal }): Promise<void>;
  /** Where mail goes, safe to show an operator: scheme, host and port, never the credentials. */
  readonly describe: string;
  close(): Promise<void>;
}

export class MailError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'MailError';
  }
}
