/**
 * Watches the element suites' requests to the relay's people routes (`GET /api/v1/team`,
 * `GET /api/v1/agents/{id}`) and passes each on to the real relay. Only for the states the runner's
 * shared relay cannot be put in on demand, it can hold requests (the loading state) or answer the
 * first few itself (a 503 while filling, a 5xx, a network error, a 410 for an agent who left).
 */
export interface PeopleRequests {
  /** The paths asked for, after `/api/v1/` (`team`, `agents/450102`). */
  paths: string[];
  /** Lets the held requests (and every later one) through to the relay. */
  release(): void;
  restore(): void;
}

export interface PeopleRequestOptions {
  /** Hold every request until `release()`. */
  hold?: boolean;
  /** Answers (or failures) for the first requests, in order; the rest go to the relay. */
  answerFirst?: Array<Response | Error>;
}

export function watchPeopleRequests(options: PeopleRequestOptions = {}): PeopleRequests {
  const real = window.fetch;
  const paths: string[] = [];
  const answers = [...(options.answerFirst ?? [])];
  let release!: () => void;
  const released = options.hold ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
  release ??= () => undefined;
  window.fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    const match = /\/api\/v1\/(team|agents\/[^/?]+)$/.exec(url.pathname);
    if (!match) return real(input, init);
    paths.push(match[1]!);
    const answer = answers.shift();
    if (answer instanceof Error) throw answer;
    if (answer) return answer;
    await released;
    return real(input, init);
  };
  return { paths, release: () => release(), restore: () => (window.fetch = real) };
}

/** A relay-shaped JSON answer. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}
