// Which URLs an endpoint may have.
import { parseWebhookUrl } from './webhook-target-guard';

describe('parseWebhookUrl', () => {
  it('parses only absolute http(s) URLs with a host and no credentials', () => {
    expect(parseWebhookUrl('https://example.com/hook?x=1')?.hostname).toBe('example.com');
    expect(parseWebhookUrl('http://[::1]:8080/')?.hostname).toBe('[::1]');
    for (const bad of [
      'example.com',
      'ftp://example.com',
      'http://',
      'https://a:b@example.com',
      ' https://example.com',
      42,
      null,
    ]) {
      expect(parseWebhookUrl(bad)).toBeNull();
    }
  });
});
