import { randomBytes, scryptSync } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  assertAcceptablePassword,
  DUMMY_PASSWORD_HASH,
  hashPassword,
  needsRehash,
  PASSWORD_PARAMS,
  setPasswordParamsForTests,
  verifyPassword,
} from './passwords';

/** The cheapest parameters the parser accepts, for rules that do not depend on the cost. */
const CHEAP = { ln: 10, r: 8, p: 1 };

describe('passwords', () => {
  // The file's only work at the production cost: one hash and its verification.
  it('hashes with N=2^17, r=8, p=1 in the threadpool, stores the parameters and verifies', async () => {
    let turns = 0;
    let hashed = false;
    const hashing = hashPassword('correct horse battery').finally(() => (hashed = true));
    // A synchronous scrypt would have settled before the event loop turned once.
    while (!hashed && turns < 3) {
      await nextTurn();
      turns++;
    }
    expect(turns).toBe(3);
    const hash = await hashing;
    expect(hash).toMatch(/^scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/);
    expect(needsRehash(hash)).toBe(false);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
  });

  describe('at a lower cost (rules that do not depend on it)', () => {
    beforeAll(() => setPasswordParamsForTests(CHEAP));
    afterAll(() => setPasswordParamsForTests(PASSWORD_PARAMS));

    it('refuses another password, and salts each hash', async () => {
      const hash = await hashPassword('correct horse battery');
      expect(hash).toMatch(/^scrypt\$ln=10,r=8,p=1\$/);
      expect(await verifyPassword('correct horse battery', hash)).toBe(true);
      expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
      expect(await hashPassword('correct horse battery')).not.toBe(hash);
    });
  });

  it('verifies older hashes with their own parameters and asks for a rehash', async () => {
    const salt = randomBytes(16);
    // Written before parameters were stored: Node's default scrypt, N=2^14.
    const legacy = `scrypt$${salt.toString('base64')}$${scryptSync('pw-legacy-123', salt, 64).toString('base64')}`;
    expect(await verifyPassword('pw-legacy-123', legacy)).toBe(true);
    expect(await verifyPassword('pw-legacy-124', legacy)).toBe(false);
    expect(needsRehash(legacy)).toBe(true);

    const older = `scrypt$ln=11,r=8,p=1$${salt.toString('base64')}$${scryptSync('pw-older-1234', salt, 64, { N: 2 ** 11 }).toString('base64')}`;
    expect(await verifyPassword('pw-older-1234', older)).toBe(true);
    expect(needsRehash(older)).toBe(true);
  });

  it('refuses malformed or out-of-bounds hashes without computing them', async () => {
    for (const stored of [
      '',
      'bcrypt$x$y',
      'scrypt$only-two',
      'scrypt$ln=30,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA==$' + Buffer.alloc(64).toString('base64'),
      'scrypt$ln=17,r=8$AAAAAAAAAAAAAAAAAAAAAA==$' + Buffer.alloc(64).toString('base64'),
      'scrypt$ln=17,r=8,p=1$$',
    ]) {
      expect(await verifyPassword('anything at all', stored)).toBe(false);
      expect(needsRehash(stored)).toBe(true);
    }
  });

  it('makes the dummy hash cost what a real one costs', () => {
    expect(DUMMY_PASSWORD_HASH).toMatch(/^scrypt\$ln=17,r=8,p=1\$/);
    expect(needsRehash(DUMMY_PASSWORD_HASH)).toBe(false);
  });

  it('needs at least 12 characters, counted as characters', () => {
    expect(() => assertAcceptablePassword('abcdefghijk')).toThrow(
      expect.objectContaining({
        errors: [{ field: 'password', rule: 'minLength', message: expect.any(String) }],
      }),
    );
    expect(() => assertAcceptablePassword('abcdefghijkl')).not.toThrow();
    // Six emoji are twelve UTF-16 units but six characters.
    expect(() => assertAcceptablePassword('🔑🔑🔑🔑🔑🔑')).toThrow();
    expect(() => assertAcceptablePassword('x'.repeat(1025))).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ rule: 'maxLength' })] }),
    );
  });
});
