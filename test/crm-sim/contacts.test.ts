// The simulator's contacts, categories and requirements with the shapes of
// crm-v1.3-openapi-contacts.yml, the search by e-mail (exact), matchingContacts, validation naming
// the field, scopes, and the same fault injection as POST /enquiries (a dropped answer still stores).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { apiClient, CRM_DATE_TIME, manualClock } from './helpers.ts';

const clock = manualClock('2025-03-14T02:00:00.000Z');
let sim: RunningSimulator;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  sim = await startSimulator({ listings: 20, seed: 11, now: clock.now, requestsPerSecond: 10_000 });
  call = apiClient(sim);
});
afterAll(() => sim.close());
beforeEach(() => sim.state.reset());

const person = {
  firstName: 'Casey',
  lastName: 'Example',
  emails: ['Casey@Example.com'],
  phoneNumbers: [{ number: '0491570006', typeCode: 'M', type: 'Mobile' }],
};

describe('contacts', () => {
  it('creates a contact (201 ContactExtended with real-shaped nulls), finds it by e-mail exactly, and a second POST makes a second contact', async () => {
    const created = await call('/contacts', { method: 'POST', body: person });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      firstName: 'Casey',
      lastName: 'Example',
      emails: ['Casey@Example.com'],
      phoneNumbers: [{ number: '0491570006', typeCode: 'M', type: 'Mobile', comment: null }],
      title: null,
      address: null,
      archived: false,
      unsubscribe: { email: false, sms: false, letters: false },
      entityType: { id: 1, name: 'Person' },
    });
    expect(created.body.inserted).toMatch(CRM_DATE_TIME);
    const found = await call('/search/contacts/email?term=casey%40example.com');
    expect(found.body).toMatchObject({ totalItems: 1, items: [{ id: created.body.id, emails: ['Casey@Example.com'] }] });
    expect((await call('/search/contacts/email?term=casey%40example.co')).body.totalItems).toBe(0);
    expect((await call('/search/contacts/email')).status).toBe(400);
    await call('/contacts', { method: 'POST', body: person });
    expect((await call('/search/contacts/email?term=casey%40example.com')).body.totalItems).toBe(2);
  });

  it('refuses a contact without a name or a way to reach them, naming the field', async () => {
    const noName = await call('/contacts', { method: 'POST', body: { emails: ['a@example.com'] } });
    expect(noName.status).toBe(400);
    expect(noName.body).toMatchObject({ success: false, code: 'INVALID_DATA' });
    expect(noName.body.msg).toMatch(/firstName or lastName/);
    const badEmail = await call('/contacts', { method: 'POST', body: { firstName: 'A', emails: ['nope'] } });
    expect(badEmail.body.msg).toMatch(/emails/);
    expect((await call('/contacts/999', { method: 'GET' })).status).toBe(404);
  });

  it('replaces categories with PUT, lists them, and refuses an unknown category', async () => {
    const { body: contact } = await call('/contacts', { method: 'POST', body: person });
    const categories = await call('/categories/contact');
    expect(categories.body.items).toContainEqual({ id: 64, name: 'Web alerts' });
    expect((await call(`/contacts/${contact.id}/categories`, { method: 'PUT', body: { items: [{ id: 61 }, { id: 64 }] } })).body).toMatchObject({
      success: true,
    });
    expect((await call(`/contacts/${contact.id}/categories`)).body.items.map((item: { id: number }) => item.id)).toEqual([61, 64]);
    const bad = await call(`/contacts/${contact.id}/categories`, { method: 'PUT', body: { items: [{ id: 999 }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/category 999/);
  });
});

describe('requirements and matching contacts', () => {
  it('adds a requirement (suburb by id or by name, answered whole), lists it, and matchingContacts finds the contact for a listing it matches', async () => {
    const listing = sim.state.listings.find(
      (candidate) => candidate.market === 'sale' && candidate.propertyClass === 'residential' && candidate.status === 'listing',
    )!;
    const fields = listing.fields as { address: { suburb: { id: number; name: string } }; type: { id: number }; bed: number; searchPrice: number };
    const { body: contact } = await call('/contacts', { method: 'POST', body: person });
    const requirement = await call(`/contacts/${contact.id}/requirements`, {
      method: 'POST',
      body: {
        type: 'sale',
        propertyClass: { id: 1 },
        propertyTypes: [{ id: fields.type.id }],
        suburbs: [{ name: fields.address.suburb.name.toLowerCase() }],
        minimumBed: fields.bed,
        maximumPrice: fields.searchPrice + 1,
      },
    });
    expect(requirement.status).toBe(201);
    expect(requirement.body).toMatchObject({
      active: true,
      type: 'sale',
      propertyClass: { id: 1, name: 'Residential', internalName: 'residential' },
      minimumPrice: null,
      maximumPrice: fields.searchPrice + 1,
      minimumBed: fields.bed,
      minimumBath: null,
      landArea: null,
      propertyTypes: [{ id: fields.type.id }],
      suburbs: [{ id: fields.address.suburb.id, name: fields.address.suburb.name, state: { abbreviation: expect.any(String) }, isPoBox: false }],
      tenantedInvestment: false,
    });
    const listed = await call(`/contacts/${contact.id}/requirements`);
    expect(listed.body.items.map((item: { id: number }) => item.id)).toEqual([requirement.body.id]);
    const matching = await call(`/properties/${listing.id}/sale/${listing.lifeId}/matchingContacts`);
    expect(matching.body.items.map((item: { id: number }) => item.id)).toEqual([contact.id]);
    // Too few bedrooms for this listing: no longer matching.
    await call(`/contacts/${contact.id}/requirements`, { method: 'POST', body: { type: 'lease', suburbs: [{ id: fields.address.suburb.id }] } });
    const other = sim.state.listings.find((candidate) => candidate.market === 'sale' && (candidate.fields as { bed: number }).bed < fields.bed);
    if (other) expect((await call(`/properties/${other.id}/sale/${other.lifeId}/matchingContacts`)).body.items).toEqual([]);
    expect((await call(`/properties/${listing.id}/sale/1/matchingContacts`)).status).toBe(404);
  });

  it('refuses a requirement with a bad type, class, property type or suburb, naming it', async () => {
    const { body: contact } = await call('/contacts', { method: 'POST', body: person });
    const post = (body: unknown) => call(`/contacts/${contact.id}/requirements`, { method: 'POST', body });
    expect((await post({ type: 'rent' })).body.msg).toMatch(/type must be sale, lease or saleOrLease/);
    expect((await post({ type: 'sale', propertyClass: { id: 99 } })).body.msg).toMatch(/propertyClass 99/);
    expect((await post({ type: 'sale', propertyTypes: [{ id: 999 }] })).body.msg).toMatch(/property type 999/);
    expect((await post({ type: 'sale', suburbs: [{ name: 'Atlantis' }] })).body.msg).toMatch(/no suburb named/);
    expect((await post({ type: 'sale', minimumPrice: 10, maximumPrice: 5 })).body.msg).toMatch(/maximumPrice/);
    expect((await call('/contacts/1/requirements', { method: 'POST', body: { type: 'sale' } })).status).toBe(404);
  });

  it('injects faults as on POST /enquiries: a dropped answer still stores the requirement; 500s and 429s do not', async () => {
    const { body: contact } = await call('/contacts', { method: 'POST', body: person });
    sim.state.setFaults([{ match: 'POST /contacts/*/requirements', dropResponseRate: 1, times: 1 }]);
    await expect(call(`/contacts/${contact.id}/requirements`, { method: 'POST', body: { type: 'sale' } })).rejects.toThrow();
    expect(sim.state.contacts.get(contact.id)!.requirements).toHaveLength(1);
    sim.state.setFaults([
      { match: 'POST /contacts', errorRate: 1, times: 1 },
      { match: 'POST /contacts', rate429: 1, times: 1 },
    ]);
    expect((await call('/contacts', { method: 'POST', body: person })).status).toBe(500);
    expect((await call('/contacts', { method: 'POST', body: person })).status).toBe(429);
    expect(sim.state.contacts.posted()).toHaveLength(1);
  });

  it('needs the contacts scopes', async () => {
    sim.state.setScopes(['properties:read']);
    expect((await call('/search/contacts/email?term=a%40example.com')).status).toBe(403);
    expect((await call('/contacts', { method: 'POST', body: person })).body.code).toBe('INSUFFICIENT_SCOPE');
  });
});
