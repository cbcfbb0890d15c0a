import { expect } from '@open-wc/testing';
import { keptFilters } from '../../widget/saved-search/saved-search.ts';

// Several suburbs chosen in the filter bar (issue #30) follow as the requirement's suburbs list;
// land size is kept, keywords and "surrounding" are not (the requirement has no field for them).
describe('saved search: the filters it keeps', () => {
  it('sends several suburbs as search.suburbs, keeps minLand, leaves keywords and surrounding out', () => {
    expect(keptFilters({ suburb: 'Kew,Hawthorn', surrounding: 'true', minLand: 600, keywords: 'pool', sort: 'price' })).to.deep.equal({
      suburbs: ['Kew', 'Hawthorn'],
      minLand: 600,
    });
    expect(keptFilters({ suburb: 'Kew', minBeds: 3 })).to.deep.equal({ suburb: 'Kew', minBeds: 3 });
  });
});
