/**
 * The mail settings' shapes, checked: SMTP_URL and MAIL_FROM (config.ts) and an agency's `smtpUrl`
 * and `mailFrom` (AGENCIES_FILE) refuse the same values with the same words, and the SMTP mailer
 * (server/mail/smtp-mailer.ts) reads the URL with the same function. The words never repeat an
 * SMTP URL: it may hold a password.
 */

/** What an SMTP URL says. */
export interface SmtpTarget {
  /** smtps://: TLS from the first byte; smtp://: STARTTLS when the server offers it. */
  secure: boolean;
  host: string;
  port: number;
  user: string | undefined;
  password: string | undefined;
  /** scheme://host:port, no credentials: safe to log and show an operator. */
  describe: string;
}

/** A From: the address, and the name mail clients show (when there is one). */
export interface MailFrom {
  name?: string;
  address: string;
}

/** Reads an SMTP URL, or says in words what is wrong with it. */
export function parseSmtpUrl(value: string): SmtpTarget | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a URL such as smtps://user:password@mail.example:465 or smtp://mail.example:587';
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return `must start with smtp:// or smtps:// (got a ${url.protocol.replace(/:$/, '')}:// URL)`;
  if (!url.hostname) return 'must name the mail server, e.g. smtps://user:password@mail.example:465';
  if ((url.pathname && url.pathname !== '/') || url.search || url.hash) return 'must hold only the scheme, credentials, host and port (no path or query)';
  const secure = url.protocol === 'smtps:';
  const port = url.port ? Number(url.port) : secure ? 465 : 587;
  return {
    secure,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    user: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    describe: `${url.protocol}//${url.hostname}:${port}`,
  };
}

/** One address: a local part, @, a domain with a dot (or a name of its own such as localhost); no spaces, no angle brackets. */
const ADDRESS = /^[^\s@<>()",;:]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * MAIL_FROM: `Agency alerts <alerts@agency.example>` or a bare `alerts@agency.example`. A display
 * name may hold any printable text but no line break or angle bracket (it goes into a header);
 * quotes around it are taken off (nodemailer quotes what needs quoting).
 */
export function parseMailFrom(value: string): MailFrom | string {
  const text = value.trim();
  if (/[\r\n]/.test(text)) return 'must be one line';
  const named = /^(.*?)\s*<([^<>]*)>$/.exec(text);
  const address = (named ? named[2] : text).trim();
  if (!ADDRESS.test(address) || address.length > 254)
    return 'must be an address such as alerts@agency.example, or a name and an address such as "Agency alerts <alerts@agency.example>"';
  if (!named) return { address };
  const name = named[1]
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .trim();
  if (/[<>]/.test(name)) return 'must have at most one <address>, after the name';
  if (name.length > 100) return 'has a name longer than 100 characters';
  return name ? { name, address } : { address };
}
