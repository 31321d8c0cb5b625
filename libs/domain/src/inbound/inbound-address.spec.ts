import { parseInboundAddress } from './inbound-address';

describe('parseInboundAddress', () => {
  it('reads our three boxes, any case, host lower-cased', () => {
    expect(parseInboundAddress('bounces+AbC_1.x=y-z@Bounces.Example.')).toEqual({
      kind: 'bounce',
      token: 'AbC_1.x=y-z',
      host: 'bounces.example',
    });
    expect(parseInboundAddress('Unsubscribe+0123abc@bounces.example')).toEqual({
      kind: 'unsubscribe',
      token: '0123abc',
      host: 'bounces.example',
    });
    expect(parseInboundAddress('FBL@bounces.example')).toEqual({
      kind: 'feedback',
      token: null,
      host: 'bounces.example',
    });
    for (const box of ['Postmaster', 'abuse']) {
      expect(parseInboundAddress(`${box}@bounces.example`)).toEqual({
        kind: 'operator',
        token: null,
        host: 'bounces.example',
      });
    }
  });

  it.each([
    'postmaster+x@bounces.example',
    'bounces@bounces.example',
    'bounces+@bounces.example',
    'unsubscribe@bounces.example',
    'fbl+x@bounces.example',
    'someone+x@bounces.example',
    'bounces+a b@bounces.example',
    'bounces+a@b@bounces.example',
    `bounces+${'a'.repeat(201)}@bounces.example`,
    'bounces+x',
    '@bounces.example',
    'bounces+x@',
  ])('refuses %s', (address) => expect(parseInboundAddress(address)).toBeNull());
});
