import express, { type RequestHandler, type Router } from 'express';
import {
  CONTACT_CATEGORIES,
  ContactInputError,
  parseCategoryItems,
  parseContact,
  parseContactNote,
  parseRequirement,
  renderContact,
  renderContactNote,
  renderRequirement,
  renderSearchResult,
  type SimContact,
} from '../contacts.ts';
import { boolParam, enumParam, paginate, pagingParams, QueryError, stringParam } from '../query.ts';
import { SCOPES, type SimulatorState } from '../state.ts';

/**
 * The contact endpoints of one account (crm-v1.3-openapi-contacts.yml), behind its gate and fault
 * injection like every other route: contacts, their categories and requirements, the account's
 * contact categories, the search by e-mail, and a listing's matching contacts.
 */
export function contactRoutes(state: SimulatorState, scope: (name: string) => RequestHandler): Router {
  const router = express.Router();
  const read = scope(SCOPES.contactsRead);
  const write = scope(SCOPES.contactsWrite);
  const json = express.json({ limit: '256kb', type: () => true });
  const book = state.contacts;

  const contactOf = (raw: unknown): SimContact => {
    const found = /^\d+$/.test(String(raw)) ? book.get(Number(raw)) : undefined;
    if (!found) throw new ContactLookupError(String(raw));
    return found;
  };

  router.get('/categories/contact', read, (req, res) => {
    const order = enumParam(req.query, 'sortOrder', ['asc', 'desc'] as const) ?? 'asc';
    let categories = CONTACT_CATEGORIES.map((category) => ({ ...category }));
    if (enumParam(req.query, 'sort', ['name'] as const)) categories.sort((a, b) => a.name.localeCompare(b.name));
    if (order === 'desc') categories = categories.reverse();
    res.json(paginate(req, categories, pagingParams(req.query), (category) => category));
  });

  router.get('/search/contacts/email', read, (req, res) => {
    const term = stringParam(req.query, 'term');
    if (term === undefined) throw new QueryError('term', 'term (the e-mail address) is required');
    const archived = boolParam(req.query, 'archived');
    const found = archived === true ? [] : book.byEmail(term);
    res.json(paginate(req, found, pagingParams(req.query), renderSearchResult));
  });

  router.post('/contacts', write, json, (req, res) => {
    const contact = book.add(parseContact(req.body));
    res.status(201).json(renderContact(contact));
  });

  router.get('/contacts/:id', read, (req, res) => {
    res.json(renderContact(contactOf(req.params.id)));
  });

  router.get('/contacts/:id/categories', read, (req, res) => {
    const contact = contactOf(req.params.id);
    const categories = CONTACT_CATEGORIES.filter((category) => contact.categories.includes(category.id)).map((category) => ({ ...category }));
    res.json(paginate(req, categories, pagingParams(req.query), (category) => category));
  });

  router.put('/contacts/:id/categories', write, json, (req, res) => {
    const contact = contactOf(req.params.id);
    book.setCategories(contact, parseCategoryItems(req.body));
    res.json({ success: true, msg: 'Contact categories updated', code: null });
  });

  router.get('/contacts/:id/requirements', read, (req, res) => {
    const contact = contactOf(req.params.id);
    const active = boolParam(req.query, 'active');
    const sort = enumParam(req.query, 'sort', ['inserted', 'modified'] as const) ?? 'inserted';
    const order = enumParam(req.query, 'sortOrder', ['asc', 'desc'] as const) ?? 'asc';
    const found = contact.requirements
      .filter((requirement) => active === undefined || requirement.active === active)
      .sort((a, b) => (a[sort] - b[sort] || a.id - b.id) * (order === 'desc' ? -1 : 1));
    res.json(paginate(req, found, pagingParams(req.query), renderRequirement));
  });

  router.post('/contacts/:id/requirements', write, json, (req, res) => {
    const contact = contactOf(req.params.id);
    const requirement = book.addRequirement(contact, parseRequirement(req.body));
    res.status(201).json(renderRequirement(requirement));
  });

  router.get('/contacts/:id/notes', read, (req, res) => {
    const contact = contactOf(req.params.id);
    const notes = [...contact.notes].sort((a, b) => a.inserted - b.inserted || a.id - b.id);
    res.json(paginate(req, notes, pagingParams(req.query), renderContactNote));
  });

  router.post('/contacts/:id/notes', write, json, (req, res) => {
    const contact = contactOf(req.params.id);
    const note = book.addNote(contact, parseContactNote(req.body));
    res.status(201).json(renderContactNote(note));
  });

  router.get('/properties/:id/:salelease/:lifeid/matchingContacts', read, scope(SCOPES.propertiesRead), (req, res) => {
    const market = req.params.salelease;
    if (market !== 'sale' && market !== 'lease') throw new QueryError('salelease', 'salelease must be sale or lease');
    const listing = /^\d+$/.test(String(req.params.lifeid)) ? state.listingByLife(market, Number(req.params.lifeid)) : undefined;
    if (!listing || String(listing.id) !== String(req.params.id))
      throw new ContactLookupError(`${String(req.params.id)}/${market}/${String(req.params.lifeid)}`, 'property life');
    const sort = enumParam(req.query, 'sort', ['inserted', 'modified', 'firstName', 'lastName', 'touched'] as const) ?? 'inserted';
    const order = enumParam(req.query, 'sortOrder', ['asc', 'desc'] as const) ?? 'asc';
    const key = (contact: SimContact): number | string =>
      sort === 'firstName'
        ? (contact.firstName ?? '')
        : sort === 'lastName'
          ? (contact.lastName ?? '')
          : sort === 'inserted'
            ? contact.inserted
            : contact.modified;
    const found = book.matching(listing).sort((a, b) => {
      const left = key(a);
      const right = key(b);
      return (left < right ? -1 : left > right ? 1 : a.id - b.id) * (order === 'desc' ? -1 : 1);
    });
    res.json(paginate(req, found, pagingParams(req.query), renderContact));
  });

  return router;
}

/** A contact (or property life) id that names nothing: 404, as the API answers unknown ids. */
export class ContactLookupError extends Error {
  constructor(
    readonly id: string,
    readonly what = 'contact',
  ) {
    super(`No ${what} with id ${id}`);
  }
}

export { ContactInputError };
