// An attempt's request: the envelope body and the headers, custom ones last.
import type { ClaimedDelivery } from './webhook-queue.types';
import { envelopeJson } from './webhook-delivery.entity';
import { requestHeaders } from './webhook-request';
import { asOrgId } from '../common/org-id';

const ID = '3f0c1a52-8d7e-4a8e-9a0b-6f5f7b1c2d3e';

function claimed(customHeaders: { key: string; value: string }[]): ClaimedDelivery {
  return {
    id: ID,
    organizationId: asOrgId('org'),
    type: 'contact.created',
    body: envelopeJson(
      ID,
      'contact.created',
      new Date('2025-01-01T00:00:00.000Z'),
      '{"b":1,"a":2}',
    ),
    attemptCount: 0,
    leaseId: 'lease',
    endpoint: {
      id: 'e',
      url: 'https://example.com',
      secret: 'a'.repeat(64),
      customHeaders,
      timeoutSeconds: 30,
      maxRetries: 5,
      isActive: true,
    },
  };
}

describe('webhook request', () => {
  it('has the body delivery_id, type, timestamp, data in that order, data as produced', () => {
    expect(claimed([]).body).toBe(
      `{"delivery_id":"${ID}","type":"contact.created","timestamp":"2025-01-01T00:00:00.000Z","data":{"b":1,"a":2}}`,
    );
    expect(JSON.parse(claimed([]).body)).toEqual({
      delivery_id: ID,
      type: 'contact.created',
      timestamp: '2025-01-01T00:00:00.000Z',
      data: { b: 1, a: 2 },
    });
  });

  it('adds custom headers after the built-ins, replacing one of the same name in any case', () => {
    const c = claimed([
      { key: 'x-webhook-event', value: 'mine' },
      { key: 'CONTENT-TYPE', value: 'application/cloudevents+json' },
      { key: 'X-Extra', value: '1' },
    ]);
    const headers = requestHeaders(c, c.body, new Date(1_700_000_000_500));
    expect(headers).toEqual({
      'X-Webhook-Signature': expect.stringMatching(/^t=1700000000,v1=[0-9a-f]{64}$/),
      'X-Webhook-Delivery-Id': c.id,
      'x-webhook-event': 'mine',
      'CONTENT-TYPE': 'application/cloudevents+json',
      'X-Extra': '1',
    });
  });
});
