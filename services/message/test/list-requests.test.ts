import { AppError } from '@smsgw/platform';
import { historyRequest, searchTerm } from '../src/domain/history';
import { receivedRequest } from '../src/domain/received';

const history = { page: 1, limit: 50, status: '', to: '', fromDate: '', toDate: '', deviceId: '', search: '' };
const inbox = { page: 1, limit: 50, from: '', fromDate: '', toDate: '', deviceId: '', search: '' };

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('not refused');
}

/** The history's and the inbox's request rules, whoever asks (the gateway, the dashboard, MCP). */
describe('history and inbox requests', () => {
  it('when a search is longer than 200 characters, then its first 200 code points are taken, a surrogate pair kept whole', () => {
    expect(searchTerm('a'.repeat(250))).toBe('a'.repeat(200));
    expect(Array.from(searchTerm('😀'.repeat(250)))).toHaveLength(200);
    expect(searchTerm('')).toBe('');
  });

  it('when a search is shorter than 3 characters, then it is a VALIDATION_ERROR naming search, SEARCH_TOO_SHORT', () => {
    const err = refusal(() => searchTerm('ab'));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details).toEqual([{ field: 'search', code: 'SEARCH_TOO_SHORT' }]);
  });

  it('when several rules fail, then the first in the order status, page, search, dates is the answer', () => {
    const bad = { ...history, status: 'lost', page: 0, search: 'a', fromDate: 'hier' };
    expect(refusal(() => historyRequest(bad)).details).toEqual([{ field: 'status', code: 'INVALID_STATUS' }]);
    expect(refusal(() => historyRequest({ ...bad, status: '' })).code).toBe('INVALID_PAGINATION');
    expect(refusal(() => historyRequest({ ...bad, status: '', page: 1 })).details).toEqual([{ field: 'search', code: 'SEARCH_TOO_SHORT' }]);
    expect(refusal(() => historyRequest({ ...bad, status: '', page: 1, search: '' })).code).toBe('INVALID_DATE');
  });

  it('when a history request is good, then its page and filter carry what was given, the search escaped', () => {
    const { page, filter } = historyRequest({ ...history, page: 2, limit: 10, status: 'sent', to: '+33612345678', search: '50%' });
    expect(page).toEqual({ page: 2, limit: 10, offset: 10 });
    expect(filter).toEqual({ status: 'sent', to: '+33612345678', textPattern: '%50\\%%' });
  });

  it('when an inbox request is checked, then it follows the history: page, search, dates', () => {
    expect(refusal(() => receivedRequest({ ...inbox, limit: 101, search: 'a' })).code).toBe('INVALID_PAGINATION');
    expect(refusal(() => receivedRequest({ ...inbox, search: 'a', toDate: 'hier' })).code).toBe('VALIDATION_ERROR');
    expect(refusal(() => receivedRequest({ ...inbox, toDate: 'hier' })).code).toBe('INVALID_DATE');
    const { filter } = receivedRequest({ ...inbox, from: 'BANQUE', fromDate: '2030-01-01', search: 'code' });
    expect(filter).toEqual({ from: 'BANQUE', since: new Date('2030-01-01T00:00:00.000Z'), textPattern: '%code%' });
  });
});
