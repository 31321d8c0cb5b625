import { isUuid } from './ids';

describe('isUuid', () => {
  it.each(['0b8f4e3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b', '0B8F4E3A-1C2D-4E5F-8A9B-0C1D2E3F4A5B'])(
    'accepts %s',
    (v) => expect(isUuid(v)).toBe(true),
  );

  it.each([
    ['a shorter id', '0b8f4e3a-1c2d-4e5f-8a9b-0c1d2e3f4a5'],
    ['text around it', 'x0b8f4e3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b'],
    ['a non-hex digit', '0b8f4e3a-1c2d-4e5f-8a9b-0c1d2e3f4a5g'],
    ['no dashes', '0b8f4e3a1c2d4e5f8a9b0c1d2e3f4a5b'],
    ['a number', 42],
    ['nothing', undefined],
  ])('refuses %s', (_, v) => expect(isUuid(v)).toBe(false));
});
