import {
  checkRecord,
  cnameMatches,
  dkimMatches,
  dmarcMatches,
  recordsToPublish,
  RecordResolver,
  spfMatches,
} from './dns-records';

const KEY = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtest+key/Value==';
const domain = { name: 'example.com', dkimSelector: 'mpabc', dkimPublicKey: KEY };
const hosts = { bounceDomain: 'bounces.platform.test', spfInclude: '_spf.platform.test' };

function errno(code: string): Error {
  return Object.assign(new Error(code), { code });
}

describe('recordsToPublish', () => {
  it('lists DKIM and the return path as required, SPF and DMARC as reported', () => {
    expect(recordsToPublish(domain, hosts)).toEqual([
      {
        purpose: 'dkim',
        type: 'TXT',
        name: 'mpabc._domainkey.example.com',
        value: `v=DKIM1; k=rsa; p=${KEY}`,
        required: true,
      },
      {
        purpose: 'return-path',
        type: 'CNAME',
        name: 'bounces.example.com',
        value: 'bounces.platform.test',
        required: true,
      },
      {
        purpose: 'spf',
        type: 'TXT',
        name: 'example.com',
        value: 'v=spf1 include:_spf.platform.test ~all',
        required: false,
      },
      {
        purpose: 'dmarc',
        type: 'TXT',
        name: '_dmarc.example.com',
        value: 'v=DMARC1; p=none',
        required: false,
      },
    ]);
  });
});

describe('record matching', () => {
  it('compares DKIM records without white-space differences', () => {
    expect(dkimMatches(`v=DKIM1; k=rsa; p=${KEY}`, KEY)).toBe(true);
    expect(dkimMatches(`v=DKIM1;k=rsa;p=${KEY.slice(0, 20)} ${KEY.slice(20)};`, KEY)).toBe(true);
    expect(dkimMatches(`p=${KEY}`, KEY)).toBe(true);
    expect(dkimMatches(`v=DKIM1; k=rsa; p=${KEY}x`, KEY)).toBe(false);
    expect(dkimMatches(`v=DKIM1; k=ed25519; p=${KEY}`, KEY)).toBe(false);
    expect(dkimMatches(`v=DKIM1; k=rsa; p=`, KEY)).toBe(false);
  });

  it('wants exactly one SPF record, including the platform', () => {
    expect(spfMatches(['v=spf1 include:_spf.platform.test ~all'], '_spf.platform.test')).toBe(true);
    expect(
      spfMatches(['v=spf1 ip4:192.0.2.1 +include:_SPF.platform.test -all'], '_spf.platform.test'),
    ).toBe(true);
    expect(spfMatches(['v=spf1 include:other.test ~all'], '_spf.platform.test')).toBe(false);
    expect(
      spfMatches(['v=spf1 include:_spf.platform.test ~all', 'v=spf1 -all'], '_spf.platform.test'),
    ).toBe(false);
    expect(spfMatches(['google-site-verification=x'], '_spf.platform.test')).toBe(false);
  });

  it('accepts any DMARC policy and compares CNAME targets without case or final dot', () => {
    expect(dmarcMatches(['v=DMARC1; p=reject; rua=mailto:d@example.com'])).toBe(true);
    expect(dmarcMatches(['v=DMARC1'])).toBe(true);
    expect(dmarcMatches(['v=spf1 -all'])).toBe(false);
    expect(cnameMatches(['Bounces.Platform.Test.'], 'bounces.platform.test')).toBe(true);
    expect(cnameMatches(['elsewhere.test'], 'bounces.platform.test')).toBe(false);
  });
});

describe('checkRecord', () => {
  const [dkim, returnPath] = recordsToPublish(domain, hosts);
  const expected = { publicKey: KEY, spfInclude: hosts.spfInclude };
  const resolver = (txt: () => Promise<string[][]>, cname = txt): RecordResolver => ({
    resolveTxt: txt as never,
    resolveCname: cname as never,
  });

  it('joins the character-strings of a long TXT record', async () => {
    const split = [`v=DKIM1; k=rsa; p=${KEY.slice(0, 30)}`, KEY.slice(30)];
    expect(
      await checkRecord(
        resolver(async () => [split]),
        dkim,
        expected,
      ),
    ).toBe('verified');
  });

  it('reads an absent name as failed and a resolver failure as unknown', async () => {
    const fail = (code: string) => async () => Promise.reject(errno(code));
    expect(await checkRecord(resolver(fail('ENOTFOUND')), dkim, expected)).toBe('failed');
    expect(await checkRecord(resolver(fail('ENODATA')), returnPath, expected)).toBe('failed');
    expect(await checkRecord(resolver(fail('ETIMEOUT')), dkim, expected)).toBe('unknown');
    expect(await checkRecord(resolver(fail('ESERVFAIL')), returnPath, expected)).toBe('unknown');
  });
});
