import { longDay } from './days.ts';
import type { ReportModel, ReportOpenHome } from './report-data.ts';

/**
 * The plain words beside each chart of the seller's report: what a screen reader says, and what a
 * seller reads first. Each names the numbers the chart draws.
 */

export const count = (value: number) => value.toLocaleString('en-AU');

/** "1 view", "312 views". */
export function plural(value: number, one: string, many = `${one}s`): string {
  return `${count(value)} ${value === 1 ? one : many}`;
}

const dayCount = (model: ReportModel) => plural(model.days.length, 'day');

/** The days a count was highest on (the first of them), or undefined when it was never above 0. */
function busiest(model: ReportModel, pick: (day: ReportModel['days'][number]) => number): { day: string; value: number } | undefined {
  let best: { day: string; value: number } | undefined;
  for (const day of model.days) if (pick(day) > 0 && (!best || pick(day) > best.value)) best = { day: day.day, value: pick(day) };
  return best;
}

export function totals(model: ReportModel) {
  const sum = (pick: (day: ReportModel['days'][number]) => number) => model.days.reduce((total, day) => total + pick(day), 0);
  return {
    views: sum((day) => day.views),
    visitors: sum((day) => day.visitors),
    kept: sum((day) => day.kept),
    shared: sum((day) => day.shared),
    enquiries: sum((day) => day.enquiries),
    registrations: sum((day) => day.registrations),
    inspections: sum((day) => day.inspections),
    erasedLeads: sum((day) => day.erasedLeads),
  };
}

export function viewsWords(model: ReportModel): string {
  const { views, visitors } = totals(model);
  if (views === 0) return `No views counted yet in ${dayCount(model)}.`;
  const best = busiest(model, (day) => day.views)!;
  return `${plural(views, 'view')} from ${plural(visitors, 'visitor')} in ${dayCount(model)}; busiest ${longDay(best.day)} with ${count(best.value)}.`;
}

export function sourcesWords(model: ReportModel): string {
  const total = model.sources.reduce((sum, source) => sum + source.views, 0);
  if (total === 0) return 'No views counted yet, so nothing to say yet about where they came from.';
  const share = (views: number) => `${count(views)} of ${count(total)}, ${Math.round((views / total) * 100)}%`;
  const [first, ...rest] = model.sources;
  const then = rest.slice(0, 3).map((source) => `${source.label} (${share(source.views)})`);
  return `Most views came from ${first!.label} (${share(first!.views)})${then.length ? `; then ${then.join('; ')}` : ''}.`;
}

export function leadsWords(model: ReportModel): string {
  const t = totals(model);
  if (t.kept + t.enquiries + t.registrations + t.inspections + t.erasedLeads === 0)
    return `Nothing kept yet, and no enquiries, open-home registrations or inspection requests, in ${dayCount(model)}.`;
  const parts = [
    `${count(t.kept)} kept`,
    plural(t.enquiries, 'enquiry', 'enquiries'),
    plural(t.registrations, 'open-home registration'),
    plural(t.inspections, 'private inspection request'),
  ];
  const erased =
    t.erasedLeads > 0 ? ` Also ${plural(t.erasedLeads, 'older lead')} whose details have since been erased, as the agency's privacy rules require.` : '';
  const best = busiest(model, (day) => day.enquiries + day.registrations + day.inspections);
  const peak = best ? ` Most leads came on ${longDay(best.day)} (${count(best.value)}).` : '';
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)} in ${dayCount(model)}.${peak}${erased}`;
}

export function openHomeLabel(openHome: ReportOpenHome, timeZone: string): string {
  if (!openHome.start) return `Open home ${openHome.id}`;
  const day = new Intl.DateTimeFormat('en-AU', { weekday: 'short', day: 'numeric', month: 'short', timeZone }).format(Date.parse(openHome.start));
  const time = (at: string) => new Intl.DateTimeFormat('en-AU', { hour: 'numeric', minute: '2-digit', timeZone }).format(Date.parse(at));
  return `${day}, ${time(openHome.start)}${openHome.end ? `–${time(openHome.end)}` : ''}`;
}

export function openHomesWords(model: ReportModel): string {
  if (model.openHomes.length === 0) return 'No open homes yet.';
  const each = model.openHomes.map((openHome) => `${openHomeLabel(openHome, model.timeZone)} with ${plural(openHome.registrations, 'registration')}`);
  return `${plural(model.openHomes.length, 'open home')}: ${each.join('; ')}.`;
}

export function typicalWords(model: ReportModel): string {
  if (model.listedDay === null)
    return "The CRM gives no listing date for this home, so it cannot be set beside the agency's typical listing at the same number of days on the market.";
  const last = model.typical.at(-1);
  if (!last) return 'Nothing to compare yet.';
  const age = plural(last.day, 'day');
  if (last.typical === null || last.listings < 3)
    return `After ${age} on the market this listing has ${plural(last.listing, 'view')}. Too few of the agency's listings have been counted for that long to show a typical one yet.`;
  const typical = count(Math.round(last.typical));
  const compared = last.listing > last.typical * 1.1 ? 'ahead of' : last.listing < last.typical * 0.9 ? 'behind' : 'in line with';
  return `After ${age} on the market this listing has ${plural(last.listing, 'view')}; the agency's typical listing had ${typical} at the same point (the median of ${plural(last.listings, 'listing')}), so this one is ${compared} it.`;
}

export function droppedWords(model: ReportModel): string | null {
  if (model.dropped <= 0) return null;
  return `At busy moments the relay set aside ${plural(model.dropped, 'count')} it could not write in time, so these figures may be up to ${count(model.dropped)} short.`;
}
