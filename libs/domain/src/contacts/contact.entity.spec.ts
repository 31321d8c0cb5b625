import { randomBytes } from 'node:crypto';
import { configureFieldEncryption, FieldCipher } from '../crypto/field-encryption';
import { deriveDisplayName, displayNameColumn } from './contact.entity';

describe('deriveDisplayName', () => {
  it.each([
    ['Ada', 'Lovelace', 'a@b.c', 'Ada Lovelace'],
    ['  Ada ', null, 'a@b.c', 'Ada'],
    [null, ' Lovelace', undefined, 'Lovelace'],
    ['', '  ', ' a@b.c ', 'a@b.c'],
    [null, null, null, 'Unnamed Contact'],
    [undefined, undefined, '  ', 'Unnamed Contact'],
  ])('(%j, %j, %j) → %s', (first, last, email, expected) => {
    expect(deriveDisplayName(first, last, email)).toBe(expected);
  });
});

describe('displayNameColumn', () => {
  beforeAll(() => configureFieldEncryption(new FieldCipher(randomBytes(32))));

  it('stores names in the clear and addresses encrypted, reading both back', () => {
    expect(displayNameColumn.to('Ada Lovelace')).toBe('Ada Lovelace');
    expect(displayNameColumn.to(null)).toBeNull();
    const stored = displayNameColumn.to('ada@example.com') as string;
    expect(stored).toMatch(/^v1:[0-9a-f]{8}:/);
    expect(stored).not.toContain('ada');
    expect(displayNameColumn.from(stored)).toBe('ada@example.com');
    expect(displayNameColumn.from('Ada Lovelace')).toBe('Ada Lovelace');
    expect(displayNameColumn.from(null)).toBeNull();
  });

  it('encrypts a name that looks like a stored ciphertext, so reading it back is unambiguous', () => {
    const tricky = 'v1:deadbeef:QUJD';
    const stored = displayNameColumn.to(tricky) as string;
    expect(stored).not.toBe(tricky);
    expect(displayNameColumn.from(stored)).toBe(tricky);
  });
});
