import { z } from 'zod';
import type { Config } from '../runtime/config.ts';
import type { Logger } from '../runtime/log.ts';
import type { Store } from '../store/store.ts';
import {
  accessProblems,
  prove,
  readScopesOf,
  refusalCause,
  refusalStatus,
  type AccessProblem,
  type Capability,
  type CapabilityState,
  type ScopesAnswer,
} from './access.ts';
import { createCrmClient, keyLimiter, type CrmClient, type SharedKey } from './client.ts';
import { listSpecs } from './lists.ts';

/** `GET /account`: the token's account (the id its webhooks carry, the name the agency gave it). */
const accountSchema = z.looseObject({ id: z.number().int(), name: z.string().nullish() });
const anyItem = z.unknown();

/** What one access token may do, found out before an agency is added or its token replaced. Never holds the token. */
export interface TokenCheck {
  /** The account the token opens (null: it could not be read). */
  account: { id: string; name: string | null } | null;
  /** GET /scopes as the CRM lists them (null: refused or out of reach). */
  scopes: string[] | null;
  capabilities: Record<Capability, CapabilityState>;
  /** Listings for sale or lease now, in the lists the relay syncs (null: listings could not be read). */
  listings: number | null;
  /** The refusals, each naming who fixes it (the API key, the token, a grant). */
  problems: AccessProblem[];
  /** The CRM could not be asked (out of reach, 5xx, the day's budget spent): what went wrong. */
  unreachable: string | null;
}

/**
 * Checks a token with the relay's own calls: its account, its scopes, then each capability the
 * relay needs (listings, counted on the lists it syncs; staff; enquiries). When the key or token
 * is refused outright (GET /scopes, which needs no scope, refused), nothing more is asked.
 */
export async function checkAccessToken(
  client: CrmClient,
  settings: Pick<Config, 'listings'>,
  options: { tokenSetting: string; signal?: AbortSignal },
): Promise<TokenCheck> {
  const { signal } = options;
  let unreachable: string | null = null;
  const note = (error: unknown) => {
    if (refusalStatus(error) === null) unreachable ??= error instanceof Error ? error.message : String(error);
  };
  let account: TokenCheck['account'] = null;
  try {
    const answer = await client.request({ path: '/account', schema: accountSchema, signal });
    account = { id: String(answer.id), name: answer.name ?? null };
  } catch (error) {
    note(error);
  }
  let scopes: string[] | null = null;
  let scopesAnswer: ScopesAnswer = null;
  try {
    scopes = await readScopesOf(client, signal);
    scopesAnswer = 'ok';
  } catch (error) {
    scopesAnswer = refusalStatus(error);
    note(error);
  }
  const refusedOutright = (status: 401 | 403): CapabilityState => ({
    available: false,
    status,
    detail: 'GET /scopes was refused',
    refusedBy: refusalCause(status, status),
  });
  let listings: number | null = null;
  const lists = listSpecs(settings).filter((list) => list.status === 'available');
  const capabilities: Record<Capability, CapabilityState> =
    scopesAnswer === 401 || scopesAnswer === 403
      ? { listings: refusedOutright(scopesAnswer), staff: refusedOutright(scopesAnswer), enquiries: refusedOutright(scopesAnswer) }
      : {
          listings: await prove(async () => {
            let total = 0;
            for (const list of lists)
              total += (await client.requestList(anyItem, { path: list.path, query: { ...list.query, page: 1, pagesize: 1 }, signal })).totalItems ?? 0;
            listings = total;
          }),
          staff: await prove(() => client.listUsers({ page: 1, pageSize: 1 }, { signal })),
          enquiries: await prove(() => client.listEnquiries({ page: 1, pageSize: 1 }, { signal })),
        };
  for (const state of Object.values(capabilities)) {
    if (state.available === false) state.refusedBy ??= refusalCause(state.status, scopesAnswer);
    else if (state.available === null) unreachable ??= state.detail;
  }
  const problems = accessProblems({ scopes, capabilities, checkedAt: new Date().toISOString(), usage: null }, options.tokenSetting);
  return { account, scopes, capabilities, listings, problems, unreachable };
}

/**
 * A client for checking one token outside the relay (the operator CLI): the relay's key, its gate
 * and daily budget where the relays count them (DATA_DIR's store; with DATABASE_URL, `shared`:
 * PostgreSQL's, every relay's), so the check counts against the key's day; no per-agency count.
 * Close it after.
 */
export function tokenCheckClient(config: Config, keyStore: Store, log: Logger, token: string, tokenSetting: string, shared?: SharedKey): CrmClient {
  return createCrmClient({
    baseUrl: config.crm.baseUrl!,
    apiKey: config.crm.apiKey!,
    accessToken: token,
    limiter: keyLimiter(config, keyStore, log, shared),
    log,
    timeoutMs: config.crm.timeoutMs,
    tokenSetting,
    getRetries: 1,
  });
}

/** A token's account, found with one request (`agencies check`): who it is, or whose refusal. */
export interface TokenIdentity {
  account: string | null;
  problem: AccessProblem | null;
  unreachable: string | null;
}

/**
 * GET /account with the token: its account id; a refusal classified as the access check does (a
 * 403 is asked again of GET /scopes, which needs no scope: refused too, the key is at fault).
 */
export async function identifyAccessToken(client: CrmClient, options: { tokenSetting: string; signal?: AbortSignal }): Promise<TokenIdentity> {
  try {
    const answer = await client.request({ path: '/account', schema: accountSchema, signal: options.signal });
    return { account: String(answer.id), problem: null, unreachable: null };
  } catch (error) {
    const status = refusalStatus(error);
    if (status === null) return { account: null, problem: null, unreachable: error instanceof Error ? error.message : String(error) };
    let scopesAnswer: ScopesAnswer = status;
    if (status === 403) {
      try {
        await readScopesOf(client, options.signal);
        scopesAnswer = 'ok';
      } catch (scopesError) {
        scopesAnswer = refusalStatus(scopesError);
      }
    }
    const refusedBy = refusalCause(status, scopesAnswer);
    const state: CapabilityState = { available: false, status, detail: 'GET /account was refused', refusedBy };
    const unknown: CapabilityState = { available: null, status: null, detail: 'not checked' };
    // A grant refused here is the account's read (the relay needs it to route webhooks): named as listings' would mislead, so as its own.
    if (refusedBy === 'grant')
      return {
        account: null,
        problem: {
          cause: 'grant',
          capabilities: [],
          status,
          headline: 'CRM ACCESS MISSING',
          reason: "the account's details not granted (GET /account refused): ask the agency to grant read access to the account",
          message: "GET /account was refused while the key and token were accepted: the relay cannot learn the agency's account id for its webhooks.",
        },
        unreachable: null,
      };
    const [problem] = accessProblems(
      { scopes: null, capabilities: { listings: state, staff: unknown, enquiries: unknown }, checkedAt: null, usage: null },
      options.tokenSetting,
    );
    return { account: null, problem: problem ?? null, unreachable: null };
  }
}
