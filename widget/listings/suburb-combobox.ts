/**
 * The filter bar's suburb field as a combobox (WAI-ARIA APG, list autocomplete): suggestions from
 * the relay as the buyer types (`GET /api/v1/suburbs/suggestions`: names, postcodes, slips
 * forgiven), chosen suburbs as removable chips, and "include surrounding suburbs". Its own chunk:
 * the bar (filter-bar.ts) shows a plain text field until the buyer points at or focuses it, then
 * loads this and hands over the words typed and the focus, so a page that is only looked at never
 * downloads it.
 *
 * Keys: ↓/↑ move through the suggestions (opening them), Enter takes the one shown active, Escape
 * closes them (again: clears the words), Backspace in an empty field removes the last chip; each
 * chip's remove button is reachable with Tab. What changed is said in a polite live region.
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { listItems, SUBURBS_MAX } from '../../contract/listing-filters.ts';
import type { Suburb, SuburbSuggestions } from '../../contract/relay-api.ts';
import { fill, plural } from '../shared/format.ts';
import { fetchJson, relayUrl } from '../shared/relay.ts';
import type { FilterBarHost } from './filter-bar-slot.ts';

/** Keystrokes closer than this make one request. */
const TYPING_PAUSE_MS = 150;
/** The relay's limit on `q` (server/listings/suburb-suggestions.ts). */
const QUERY_MAX = 60;

interface FieldState {
  /** The query's `suburb` the chips were read from: a new one (a search, Back, Reset) replaces them. */
  source: string | undefined;
  sourceSurrounding: string | undefined;
  chosen: string[];
  words: string;
  options: Suburb[];
  open: boolean;
  /** The option shown active (aria-activedescendant), -1 for none. */
  active: number;
  announcement: string;
  surrounding: boolean;
  /** Focus the field at the next render (handed over, or its chip removed). */
  focus: boolean;
  /** The plain field this replaces, until the first render reads its last words (keys typed while the bar re-renders land in it). */
  plainField?: HTMLInputElement;
  timer?: ReturnType<typeof setTimeout>;
  asking?: AbortController;
}

/** One field per element, found by the element's stable refresh callback. */
const states = new WeakMap<() => void, FieldState>();
/** Answers already had, by relay and words: typing back over a word asks nothing. */
const answers = new Map<string, Suburb[]>();

const styles = css`
  .combo {
    position: relative;
  }
  .chips {
    display: flex;
    flex-wrap: wrap;
    gap: 0.375rem;
    margin: 0 0 0.375rem;
    padding: 0;
    list-style: none;
  }
  .chip {
    display: inline-flex;
    align-items: center;
    gap: 0.125rem;
    padding-inline-start: 0.625rem;
    border: 1px solid var(--_estate-border);
    border-radius: 999px;
    font-size: 0.875rem;
  }
  .chips button {
    min-height: 1.75rem;
    min-width: 1.75rem;
    padding: 0;
    border-color: transparent;
    border-radius: 999px;
    background: transparent;
  }
  .options {
    position: absolute;
    z-index: 3;
    inset: 100% 0 auto;
    max-height: 16rem;
    overflow-y: auto;
    margin: 0.25rem 0 0;
    padding: 0.25rem 0;
    list-style: none;
    background: var(--_estate-surface);
    border: 1px solid var(--_estate-muted);
    border-radius: calc(var(--_estate-radius) * 0.75);
    box-shadow: 0 0.5rem 1.5rem rgb(0 0 0 / 0.15);
  }
  .option {
    display: flex;
    align-items: center;
    justify-content: space-between;
    gap: 0.5rem;
    min-height: 2.75rem;
    padding: 0 0.75rem;
    cursor: pointer;
  }
  .option[aria-selected='true'] {
    background: var(--_estate-accent);
    color: var(--_estate-accent-contrast);
  }
  .option span {
    font-size: 0.875rem;
  }
  .field .check {
    display: flex;
    align-items: center;
    gap: 0.5rem;
    min-height: 1.75rem;
    font-weight: 400;
  }
  .check input {
    width: 1.125rem;
    min-height: 0;
    height: 1.125rem;
    margin: 0;
    padding: 0;
    accent-color: var(--_estate-accent);
  }
`;

/** The words and focus of the plain field this replaces (filter-bar.ts). */
export function handOver(host: FilterBarHost, field: HTMLInputElement): void {
  const state = stateOf(host);
  state.plainField = field;
  takeWords(host, state, field);
  if (state.words.trim()) ask(host, state);
}

function takeWords(host: FilterBarHost, state: FieldState, field: HTMLInputElement): void {
  // The plain field showed the query's suburbs ("Kew,Hawthorn"): they are chips now.
  state.words = listItems(field.value).join(',') === (host.query.suburb ?? '') ? '' : field.value;
  state.focus = field.matches(':focus');
}

export function renderSuburbField(host: FilterBarHost, inputId: string): TemplateResult {
  const state = stateOf(host);
  if (state.plainField) {
    // Still in the page while this first render is made: keys typed since the hand-over are in it.
    const before = state.words;
    takeWords(host, state, state.plainField);
    state.plainField = undefined;
    if (state.words !== before) queueMicrotask(() => ask(host, state));
  }
  const { text } = host;
  const listId = `${inputId}-options`;
  const expanded = state.open && state.options.length > 0;
  const refresh = (): void => host.refresh();
  const choose = (name: string): void => {
    if (state.chosen.length < SUBURBS_MAX && !state.chosen.some((held) => held.toLowerCase() === name.toLowerCase())) state.chosen.push(name);
    Object.assign(state, { words: '', options: [], open: false, active: -1, announcement: fill(text.suburbAdded, { suburb: name }) });
    refresh();
  };
  const remove = (name: string): void => {
    state.chosen = state.chosen.filter((held) => held !== name);
    // Its button is gone: focus goes back to the field, not to the page's start.
    Object.assign(state, { announcement: fill(text.suburbRemoved, { suburb: name }), focus: true });
    refresh();
  };
  const searched = (): string => [...state.chosen, ...(state.words.trim() ? [state.words.trim()] : [])].join(',');
  const onInput = (event: Event): void => {
    const field = event.target as HTMLInputElement;
    state.words = field.value;
    state.active = -1;
    // What a search sends now, not at the next render: Enter right after the last key searches every letter typed.
    const sent = field.form?.elements.namedItem('suburb');
    if (sent instanceof HTMLInputElement) sent.value = searched();
    ask(host, state);
  };
  const onKeydown = (event: KeyboardEvent): void => {
    const count = state.options.length;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        if (!count) return;
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        // Closed, or none active: the first (↓) or the last (↑); then round and round.
        state.active = !state.open || state.active < 0 ? (step > 0 ? 0 : count - 1) : (state.active + step + count) % count;
        state.open = true;
        refresh();
        return;
      }
      case 'Enter':
        // A suggestion shown active is taken; otherwise Enter searches (the form's default).
        if (expanded && state.active >= 0) {
          event.preventDefault();
          choose(state.options[state.active]!.name);
        }
        return;
      case 'Escape':
        if (expanded) state.open = false;
        else if (state.words) Object.assign(state, { words: '', options: [] });
        else return;
        event.preventDefault();
        state.active = -1;
        refresh();
        return;
      case 'Backspace':
        if (!state.words && state.chosen.length) {
          event.preventDefault();
          remove(state.chosen.at(-1)!);
        }
        return;
    }
  };
  const onBlur = (): void => {
    if (!state.open) return;
    Object.assign(state, { open: false, active: -1 });
    refresh();
  };
  adoptStyles(host.renderRoot);
  if (state.focus) {
    state.focus = false;
    // Once this render is in the page: the element's update, then the field (keys typed meanwhile land in it).
    const element = (host.renderRoot as ShadowRoot).host as HTMLElement & { updateComplete?: Promise<unknown> };
    void (element.updateComplete ?? Promise.resolve()).then(() => {
      const input = host.renderRoot.querySelector<HTMLInputElement>(`#${inputId}`);
      input?.focus();
      input?.setSelectionRange(input.value.length, input.value.length);
    });
  }
  return html`<div part="filter-field" class="field wide">
    <label part="filter-label" id=${`${inputId}-label`} for=${inputId}>${text.suburb}</label>
    <div class="combo">
      ${
        state.chosen.length
          ? html`<ul part="suburb-chips" class="chips" aria-label=${text.suburb}>
              ${state.chosen.map(
                (name) =>
                  html`<li part="suburb-chip" class="chip">
                    ${name}<button type="button" part="suburb-chip-remove" aria-label=${fill(text.removeSuburb, { suburb: name })} @click=${() => remove(name)}>
                      <span aria-hidden="true">×</span>
                    </button>
                  </li>`,
              )}
            </ul>`
          : nothing
      }
      <input
        part="filter-control"
        id=${inputId}
        type="text"
        role="combobox"
        aria-labelledby=${`${inputId}-label`}
        autocomplete="off"
        spellcheck="false"
        aria-autocomplete="list"
        aria-expanded=${expanded ? 'true' : 'false'}
        aria-controls=${listId}
        aria-activedescendant=${ifDefined(expanded && state.active >= 0 ? `${listId}-${state.active}` : undefined)}
        .value=${state.words}
        @input=${onInput}
        @keydown=${onKeydown}
        @blur=${onBlur}
      />
      <ul part="suburb-options" class="options" id=${listId} role="listbox" aria-label=${text.suburb} ?hidden=${!expanded}>
        ${state.options.map(
          (suburb, index) =>
            // Keys reach the options through the field (aria-activedescendant), as the combobox pattern has it: a click is the pointer's way.
            // eslint-disable-next-line lit-a11y/click-events-have-key-events
            html`<li
              part="suburb-option"
              class="option"
              id=${`${listId}-${index}`}
              role="option"
              aria-selected=${index === state.active ? 'true' : 'false'}
              @pointerdown=${(event: Event) => event.preventDefault()}
              @click=${() => choose(suburb.name)}
            >
              ${suburb.name}<span>${[suburb.state, suburb.postcode].filter(Boolean).join(' ')}</span>
            </li>`,
        )}
      </ul>
    </div>
    <input type="hidden" name="suburb" .value=${searched()} />
    <label class="check">
      <input
        type="checkbox"
        name="surrounding"
        value="true"
        .checked=${state.surrounding}
        @change=${(event: Event) => (state.surrounding = (event.target as HTMLInputElement).checked)}
      />
      ${text.surrounding}
    </label>
    <p class="visually-hidden" role="status">${state.announcement}</p>
  </div>`;
}

function stateOf(host: FilterBarHost): FieldState {
  let state = states.get(host.refresh);
  if (!state) {
    state = {
      source: undefined,
      sourceSurrounding: undefined,
      chosen: [],
      words: '',
      options: [],
      open: false,
      active: -1,
      announcement: '',
      surrounding: false,
      focus: false,
    };
    states.set(host.refresh, state);
  }
  const { suburb, surrounding } = host.query;
  if (state.source !== suburb || state.sourceSurrounding !== surrounding) {
    Object.assign(state, { source: suburb, sourceSurrounding: surrounding, chosen: listItems(suburb ?? ''), surrounding: surrounding === 'true' });
  }
  return state;
}

/** Asks the relay for the words' suburbs after a pause in typing; the question before is dropped. */
function ask(host: FilterBarHost, state: FieldState): void {
  clearTimeout(state.timer);
  state.asking?.abort();
  const words = state.words.trim().slice(0, QUERY_MAX);
  if (!words) {
    Object.assign(state, { options: [], open: false, announcement: '' });
    host.refresh();
    return;
  }
  const url = `${relayUrl(host.relay, 'api/v1/suburbs/suggestions')}?q=${encodeURIComponent(words)}`;
  const show = (found: Suburb[]): void => {
    // Suburbs already chosen are not offered again.
    const options = found.filter((suburb) => !state.chosen.some((held) => held.toLowerCase() === suburb.name.toLowerCase()));
    const announcement = options.length ? plural(host.locale, options.length, host.text.suburbSuggestions, { count: options.length }) : host.text.noSuburbs;
    Object.assign(state, { options, open: true, active: -1, announcement });
    host.refresh();
  };
  const known = answers.get(url);
  if (known) return show(known);
  const asking = (state.asking = new AbortController());
  state.timer = setTimeout(() => {
    fetchJson<SuburbSuggestions>(url, { signal: asking.signal }).then(
      (answer) => {
        answers.set(url, answer.items);
        if (!asking.signal.aborted) show(answer.items);
      },
      // Words the relay refuses (a mark no suburb has), or no answer: nothing to suggest, the words still search.
      () => {
        if (!asking.signal.aborted) show([]);
      },
    );
  }, TYPING_PAUSE_MS);
}

/** The combobox's styles, added once to the element's shadow root (the bar renders in it): no inline style for a page's CSP to refuse. */
function adoptStyles(root: HTMLElement | DocumentFragment): void {
  const sheet = styles.styleSheet;
  if (!(root instanceof ShadowRoot) || !sheet || root.adoptedStyleSheets.includes(sheet)) return;
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}
