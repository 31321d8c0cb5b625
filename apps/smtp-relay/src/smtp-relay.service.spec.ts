// The relay's pure decisions: when AUTH in the clear is refused.
import { insecureAuthRefused } from './smtp-relay.service';

describe('insecureAuthRefused', () => {
  it('refuses AUTH without TLS from a non-loopback client unless allowed', () => {
    expect(insecureAuthRefused({ secure: false, remoteAddress: '203.0.113.7' }, false)).toBe(true);
    expect(insecureAuthRefused({ secure: false, remoteAddress: '203.0.113.7' }, true)).toBe(false);
    expect(insecureAuthRefused({ secure: true, remoteAddress: '203.0.113.7' }, false)).toBe(false);
    expect(insecureAuthRefused({ secure: false, remoteAddress: '127.0.0.1' }, false)).toBe(false);
    expect(insecureAuthRefused({ secure: false, remoteAddress: '::ffff:127.0.0.1' }, false)).toBe(
      false,
    );
    expect(insecureAuthRefused({ secure: false, remoteAddress: '::1' }, false)).toBe(false);
  });
});
