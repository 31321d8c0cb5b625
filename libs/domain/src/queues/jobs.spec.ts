import { JOBS } from './jobs';

const ID = '0b8f4e3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const OTHER = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

describe('JOBS', () => {
  it('takes a payload of ids and keeps only them', () => {
    expect(JOBS.deliverEmail.parse({ organizationId: OTHER, messageId: ID, extra: 'x' })).toEqual({
      organizationId: OTHER,
      messageId: ID,
    });
    expect(JOBS.runImport.parse({ importId: ID, organizationId: OTHER })).toEqual({
      importId: ID,
      organizationId: OTHER,
    });
    expect(JOBS.kickCampaign.parse({ campaignId: ID, organizationId: OTHER })).toEqual({
      campaignId: ID,
      organizationId: OTHER,
    });
  });

  it.each([
    ['nothing', undefined],
    ['a string', ID],
    ['a missing id', {}],
    ['an id that is not a UUID', { organizationId: OTHER, messageId: 'abc' }],
    ['an id of another type', { organizationId: OTHER, messageId: 42 }],
    ['a message without its organization', { messageId: ID }],
  ])('refuses %s', (_, data) => expect(JOBS.deliverEmail.parse(data)).toBeNull());

  it('refuses a campaign kick without its organization', () => {
    expect(JOBS.kickCampaign.parse({ campaignId: ID })).toBeNull();
  });

  it('refuses an import run without its organization', () => {
    expect(JOBS.runImport.parse({ importId: ID })).toBeNull();
  });

  it('names every job once', () => {
    const names = Object.values(JOBS).map((j) => `${j.queue}/${j.name}`);
    expect(new Set(names).size).toBe(names.length);
  });
});
