import { randomBytes } from 'node:crypto';
import { FieldCipher } from './field-encryption';

describe(FieldCipher.name, () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);

  it('round-trips with a random nonce and the key id in the stored value', () => {
    const c = new FieldCipher(oldKey);
    const a = c.encrypt('ana@example.com');
    const b = c.encrypt('ana@example.com');
    expect(a).not.toBe(b);
    expect(a).toMatch(new RegExp(`^v1:${c.currentKeyId}:`));
    expect(a).not.toContain('ana');
    expect(c.decrypt(a)).toBe('ana@example.com');
    // Multi-byte UTF-8 (names, handles) and the empty string come back whole.
    for (const text of ['Zoë Ünal 测试 😀', '']) expect(c.decrypt(c.encrypt(text))).toBe(text);
  });

  it('never repeats a nonce across the pooled randomness (text and bytes, past several pools)', () => {
    const c = new FieldCipher(oldKey);
    const nonces = new Set<string>();
    for (let i = 0; i < 1200; i++) {
      const text = c.encrypt(`v${i}`);
      const buf = Buffer.from(text.slice(text.lastIndexOf(':') + 1), 'base64');
      nonces.add(buf.subarray(0, 12).toString('hex'));
      expect(c.decrypt(text)).toBe(`v${i}`);
      const bytes = c.encryptBytes(Buffer.from(`b${i}`));
      const head = `v1:${c.currentKeyId}:`.length;
      nonces.add(bytes.subarray(head, head + 12).toString('hex'));
      expect(c.decryptBytes(bytes).toString()).toBe(`b${i}`);
    }
    expect(nonces.size).toBe(2400);
  });

  it('reads values of an old key after rotation and finds their blind index', () => {
    const before = new FieldCipher(oldKey);
    const stored = before.encrypt('+14155550100');
    const index = before.blindIndex('+14155550100');
    const after = new FieldCipher(newKey, [oldKey]);
    expect(after.decrypt(stored)).toBe('+14155550100');
    expect(after.isStale(stored)).toBe(true);
    expect(after.blindIndexCandidates('+14155550100')).toContain(index);
    expect(after.blindIndex('+14155550100')).not.toBe(index);
  });

  it('refuses a tampered value and an unknown key', () => {
    const c = new FieldCipher(oldKey);
    const stored = c.encrypt('secret');
    const tampered = stored.slice(0, -4) + (stored.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(() => c.decrypt(tampered)).toThrow();
    expect(() => new FieldCipher(newKey).decrypt(stored)).toThrow(/ENCRYPTION_KEYS_OLD/);
  });

  it('round-trips bytes, across a rotation, and refuses tampered bytes', () => {
    const plain = Buffer.concat([Buffer.from('Subject: hi\r\n\r\n'), randomBytes(10_000)]);
    const before = new FieldCipher(oldKey);
    const stored = before.encryptBytes(plain);
    expect(stored.subarray(0, 12).toString('latin1')).toBe(`v1:${before.currentKeyId}:`);
    expect(stored.includes(Buffer.from('Subject'))).toBe(false);
    expect(before.encryptBytes(plain).equals(stored)).toBe(false);
    expect(before.decryptBytes(stored).equals(plain)).toBe(true);
    expect(new FieldCipher(newKey, [oldKey]).decryptBytes(stored).equals(plain)).toBe(true);
    const tampered = Buffer.from(stored);
    tampered[tampered.length - 20] ^= 1;
    expect(() => before.decryptBytes(tampered)).toThrow();
    expect(() => new FieldCipher(newKey).decryptBytes(stored)).toThrow(/ENCRYPTION_KEYS_OLD/);
  });

  it('decrypts in turns what decrypt reads, across a rotation, and refuses the same tampering', async () => {
    const text = `<p>Zoë 😀</p>${'x'.repeat(100_000)}`;
    const stored = new FieldCipher(oldKey).encrypt(text);
    const after = new FieldCipher(newKey, [oldKey]);
    // An immediate that queues itself again runs once per turn: the steps take three turns or more.
    let turns = 0;
    let next = setImmediate(function tick() {
      turns++;
      next = setImmediate(tick);
    });
    await expect(after.decryptInTurns(stored)).resolves.toBe(text);
    clearImmediate(next);
    expect(turns).toBeGreaterThanOrEqual(3);
    const tampered = stored.slice(0, -4) + (stored.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await expect(after.decryptInTurns(tampered)).rejects.toThrow();
    await expect(new FieldCipher(newKey).decryptInTurns(stored)).rejects.toThrow(
      /ENCRYPTION_KEYS_OLD/,
    );
  });
});
