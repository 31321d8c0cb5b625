import { loggedPath } from './request-context.middleware';

describe('loggedPath', () => {
  it.each([
    ['/u/AbC123-_xyz', '/u/…'],
    ['/u/AbC123-_xyz?List-Unsubscribe=One-Click', '/u/…'],
    ['/t/o/AbC123-_xyz.gif', '/t/o/….gif'],
    ['/t/c/AbC123-_xyz', '/t/c/…'],
    ['/T/C/AbC123-_xyz/', '/T/C/…/…'],
    ['/U/AbC123-_xyz', '/U/…'],
    ['/api/v1/user/contacts?email=a@b.io', '/api/v1/user/contacts'],
    ['/u', '/u'],
  ])('%s is logged as %s', (url, logged) => {
    expect(loggedPath(url)).toBe(logged);
  });
});
