import { accessProblems, type KeyAccess } from '../crm/access.ts';
import type { SyncState } from '../listings/cache.ts';
import type { Agency } from './agency.ts';

/**
 * Whether an agency serves, and if not, why, in one line that names who must act: the same words
 * in its /readyz, the relay's /readyz, `npm run relay -- agencies` and the start-up table. Read
 * from what the agency's store holds (its sync state and its last access check), so the CLI tells
 * the same from the store as the running relay does.
 */
/** The reason of an agency whose first sync has not ended yet. */
export const FILLING = 'filling: the first sync is under way';

export interface AgencyReadiness {
  /** Its listing cache was filled and the CRM lets it read listings. */
  ready: boolean;
  /** Why it is not ready (null when ready). */
  reason: string | null;
  /** What is wrong while it serves: a capability not granted (staff, enquiries), the last sync's failure. */
  problems: string[];
}

export function agencyReadiness(
  sync: Pick<SyncState, 'lastSuccessAt' | 'lastError' | 'lastErrorAt'>,
  access: KeyAccess | undefined,
  /** Where its token is set (CRM_ACCESS_TOKEN, or its entry in AGENCIES_FILE). */
  tokenSetting: string,
): AgencyReadiness {
  const problems = access ? accessProblems(access, tokenSetting) : [];
  // A refused key or token takes listings down with everything else; a grant may be listings' alone.
  const listingsRefused = problems.find((problem) => problem.capabilities.includes('listings'));
  const filled = sync.lastSuccessAt !== null;
  const failing = sync.lastError !== null && sync.lastErrorAt !== null && (sync.lastSuccessAt === null || sync.lastErrorAt >= sync.lastSuccessAt);
  const reason = listingsRefused ? listingsRefused.reason : filled ? null : failing ? `the first sync failed: ${sync.lastError}` : FILLING;
  const others = problems.filter((problem) => problem !== listingsRefused).map((problem) => problem.reason);
  // The sync's own error is the access problem's consequence when there is one: said once.
  if (failing && filled && !listingsRefused) others.push(`the last sync failed: ${sync.lastError}`);
  return { ready: reason === null, reason, problems: others };
}

/** The running agency's readiness, from its cache and its access check. */
export function readinessOf(agency: Agency): AgencyReadiness {
  return agencyReadiness(agency.listings.cache.readState(), agency.access.current(), agency.crm.tokenSetting);
}
