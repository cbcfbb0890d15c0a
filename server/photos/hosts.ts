/**
 * The photo mirror fetches only from hosts the operator named (PHOTO_HOSTS), so a listing record
 * (or anyone able to write one) cannot turn the relay into an open proxy that reaches internal
 * addresses (SSRF).
 */
export class PhotoHostAllowList {
  private readonly entries: Set<string>;

  constructor(hosts: readonly string[]) {
    this.entries = new Set(hosts.map((host) => host.trim().toLowerCase()).filter(Boolean));
  }

  get hosts(): string[] {
    return [...this.entries];
  }

  /**
   * An entry with a port matches that host and port only; an entry without one matches the host
   * on the scheme's default port. Only http and https are fetched.
   */
  allows(url: URL): boolean {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
    if (url.username || url.password) return false;
    // URL.host leaves the default port out, so "photos.example" matches only https://photos.example/...
    return this.entries.has(url.host.toLowerCase());
  }
}

/** `host[:port]` of a URL, or undefined when it does not parse. */
export function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/** PHOTO_HOSTS, or by default the CRM's host and the demo simulator's. */
export function photoHosts(configured: readonly string[] | undefined, defaults: Array<string | undefined>): string[] {
  if (configured && configured.length > 0) return [...configured];
  return [...new Set(defaults.map(hostOf).filter((host): host is string => host !== undefined))];
}
