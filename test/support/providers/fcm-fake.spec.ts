// The FCM fake against Google's documented behaviour: the JWT-bearer grant of a service account
// and the HTTP v1 send with the error bodies of Firebase's error-code reference.
import { signJwt } from '@app/domain/channels/providers/jwt';
import { FCM_SCOPE, FcmFake, ServiceAccountKey } from './fcm-fake';

describe(FcmFake.name, () => {
  const fake = new FcmFake({ projectId: 'demo-project', rsaBits: 1024 });
  beforeAll(() => fake.start());
  afterAll(() => fake.stop());

  const assertion = (
    key: ServiceAccountKey,
    overrides: Record<string, unknown> = {},
    pem = key.private_key,
  ) => {
    const iat = Math.floor(Date.now() / 1000);
    const claims = {
      iss: key.client_email,
      scope: FCM_SCOPE,
      aud: key.token_uri,
      iat,
      exp: iat + 3600,
      ...overrides,
    };
    return signJwt({ typ: 'JWT', kid: key.private_key_id }, claims, pem, 'RS256');
  };
  const grant = (jwt: string, grantType = 'urn:ietf:params:oauth:grant-type:jwt-bearer') =>
    fetch(`${fake.url}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: grantType, assertion: jwt }).toString(),
    });
  const accessToken = async () =>
    ((await (await grant(assertion(fake.serviceAccount))).json()) as { access_token: string })
      .access_token;
  const send = (token: string | undefined, body: unknown, project = 'demo-project') =>
    fetch(`${fake.url}/v1/projects/${project}/messages:send`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  describe('the service-account key', () => {
    it('has the fields of a downloaded key file, its token_uri on the fake', () => {
      const key = fake.serviceAccount;
      expect(key).toMatchObject({
        type: 'service_account',
        project_id: 'demo-project',
        token_uri: `${fake.url}/token`,
        universe_domain: 'googleapis.com',
      });
      expect(key.private_key).toMatch(
        /^-----BEGIN PRIVATE KEY-----\n[\s\S]+-----END PRIVATE KEY-----\n$/,
      );
      expect(key.private_key_id).toMatch(/^[0-9a-f]{40}$/);
      expect(key.client_email).toMatch(
        /^firebase-adminsdk-\w+@demo-project\.iam\.gserviceaccount\.com$/,
      );
      expect(key.client_id).toMatch(/^\d{21}$/);
    });
  });

  describe('POST /token', () => {
    it('grants a Bearer access token for a JWT signed by the key', async () => {
      const res = await grant(assertion(fake.serviceAccount));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        access_token: expect.stringMatching(/^ya29\./),
        expires_in: 3599,
        token_type: 'Bearer',
      });
      expect(fake.tokenRequests.at(-1)).toMatchObject({
        clientEmail: fake.serviceAccount.client_email,
        accessToken: expect.any(String),
      });
    });

    it('refuses a JWT signed by another key: invalid_grant "Invalid JWT Signature."', async () => {
      const other = fake.createServiceAccount();
      const res = await grant(assertion(fake.serviceAccount, {}, other.private_key));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: 'invalid_grant',
        error_description: 'Invalid JWT Signature.',
      });
    });

    it('refuses a kid that is not the key id', async () => {
      const key = fake.serviceAccount;
      const iat = Math.floor(Date.now() / 1000);
      const jwt = signJwt(
        { kid: 'f'.repeat(40) },
        { iss: key.client_email, scope: FCM_SCOPE, aud: key.token_uri, iat, exp: iat + 3600 },
        key.private_key,
        'RS256',
      );
      expect(await (await grant(jwt)).json()).toEqual({
        error: 'invalid_grant',
        error_description: 'Invalid JWT Signature.',
      });
    });

    it('refuses an assertion valid for more than an hour, or expired', async () => {
      const iat = Math.floor(Date.now() / 1000);
      for (const claims of [{ exp: iat + 7200 }, { iat: iat - 7200, exp: iat - 3600 }]) {
        const res = await grant(assertion(fake.serviceAccount, claims));
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({
          error: 'invalid_grant',
          error_description: expect.stringContaining(
            'Token must be a short-lived token (60 minutes)',
          ),
        });
      }
    });

    it('refuses another audience, a scope without firebase.messaging and another grant type', async () => {
      expect(
        await (
          await grant(
            assertion(fake.serviceAccount, { aud: 'https://oauth2.googleapis.com/token' }),
          )
        ).json(),
      ).toMatchObject({ error: 'invalid_grant' });
      const scoped = await grant(
        assertion(fake.serviceAccount, { scope: 'https://www.googleapis.com/auth/cloud-platform' }),
      );
      expect(await scoped.json()).toEqual({
        error: 'invalid_scope',
        error_description: 'Invalid OAuth scope or ID token audience provided.',
      });
      const other = await grant(assertion(fake.serviceAccount), 'client_credentials');
      expect(other.status).toBe(400);
      expect(await other.json()).toMatchObject({ error: 'unsupported_grant_type' });
    });
  });

  describe('POST /v1/projects/{project}/messages:send', () => {
    let bearer: string;
    beforeAll(async () => {
      bearer = await accessToken();
      fake.registerToken('tok-valid');
      fake.registerToken('tok-gone', 'unregistered');
      fake.registerToken('tok-other-app', 'valid', 'another-project');
      fake.registerToken('tok-ios-bad-apns', 'third_party_auth_error');
    });

    it('answers 401 UNAUTHENTICATED without a valid access token', async () => {
      for (const token of [undefined, 'ya29.unknown']) {
        const res = await send(token, { message: { token: 'tok-valid' } });
        expect(res.status).toBe(401);
        const body = (await res.json()) as { error: Record<string, unknown> };
        expect(body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
        expect(body.error.message).toMatch(/^Request had invalid authentication credentials/);
      }
    });

    it('answers an expired access token 401', async () => {
      let now = Date.now();
      const short = new FcmFake({ now: () => now, tokenLifetimeSeconds: 60, rsaBits: 1024 });
      await short.start();
      try {
        short.registerToken('t');
        const key = short.serviceAccount;
        const iat = Math.floor(now / 1000);
        const jwt = signJwt(
          { kid: key.private_key_id },
          { iss: key.client_email, scope: FCM_SCOPE, aud: key.token_uri, iat, exp: iat + 3600 },
          key.private_key,
          'RS256',
        );
        const res = await fetch(`${short.url}/token`, {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
            assertion: jwt,
          }),
        });
        const { access_token } = (await res.json()) as { access_token: string };
        const post = () =>
          fetch(`${short.url}/v1/projects/${short.projectId}/messages:send`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${access_token}` },
            body: JSON.stringify({ message: { token: 't' } }),
          });
        expect((await post()).status).toBe(200);
        now += 61_000;
        expect((await post()).status).toBe(401);
      } finally {
        await short.stop();
      }
    });

    it('accepts a message to a registered token and records it as received', async () => {
      const message = {
        token: 'tok-valid',
        notification: { title: 'Hi', body: 'There', image: 'https://example.com/a.png' },
        data: { orderId: '42' },
        android: { ttl: '3600s', collapse_key: 'orders' },
        apns: { headers: { 'apns-expiration': '1700000000', 'apns-collapse-id': 'orders' } },
        webpush: { headers: { TTL: '3600' } },
      };
      const res = await send(bearer, { message });
      expect(res.status).toBe(200);
      const { name } = (await res.json()) as { name: string };
      expect(name).toMatch(/^projects\/demo-project\/messages\/.+/);
      expect(fake.messages.at(-1)).toMatchObject({
        name,
        projectId: 'demo-project',
        message,
        validateOnly: false,
      });
    });

    it("answers Firebase's example 1: a data value that is not a string", async () => {
      const res = await send(bearer, { message: { token: 'tok-valid', data: { n: 12 } } });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: {
          code: 400,
          message: "Invalid value at 'message.data[0].value' (TYPE_STRING), 12",
          status: 'INVALID_ARGUMENT',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.BadRequest',
              fieldViolations: [
                {
                  field: 'message.data[0].value',
                  description: "Invalid value at 'message.data[0].value' (TYPE_STRING), 12",
                },
              ],
            },
          ],
        },
      });
    });

    it("answers Firebase's example 2: a token that is not a registration token", async () => {
      const res = await send(bearer, { message: { token: 'not-a-token' } });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: {
          code: 400,
          message: 'The registration token is not a valid FCM registration token',
          status: 'INVALID_ARGUMENT',
          details: [
            {
              '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError',
              errorCode: 'INVALID_ARGUMENT',
            },
          ],
        },
      });
    });

    it('wants exactly one target, known field names and a Duration ttl', async () => {
      const none = await send(bearer, { message: { notification: { title: 'x' } } });
      expect(((await none.json()) as { error: { message: string } }).error.message).toBe(
        'Recipient of the message is not set.',
      );
      const two = await send(bearer, { message: { token: 'tok-valid', topic: 'news' } });
      expect(two.status).toBe(400);
      const unknown = await send(bearer, {
        message: { token: 'tok-valid', notification: { subtitle: 'x' } },
      });
      expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe(
        `Invalid JSON payload received. Unknown name "subtitle" at 'message.notification': Cannot find field.`,
      );
      const ttl = await send(bearer, { message: { token: 'tok-valid', android: { ttl: 3600 } } });
      expect(((await ttl.json()) as { error: { status: string } }).error.status).toBe(
        'INVALID_ARGUMENT',
      );
      const reserved = await send(bearer, {
        message: { token: 'tok-valid', data: { from: 'me' } },
      });
      expect(reserved.status).toBe(400);
    });

    it('answers an unregistered token 404 NOT_FOUND with FcmError UNREGISTERED', async () => {
      const res = await send(bearer, { message: { token: 'tok-gone' } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        error: {
          code: 404,
          message: 'Requested entity was not found.',
          status: 'NOT_FOUND',
          details: [
            {
              '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError',
              errorCode: 'UNREGISTERED',
            },
          ],
        },
      });
    });

    it("answers SENDER_ID_MISMATCH (403) for another project's token, THIRD_PARTY_AUTH_ERROR (401) for bad APNs credentials", async () => {
      const mismatch = await send(bearer, { message: { token: 'tok-other-app' } });
      expect(mismatch.status).toBe(403);
      expect(await mismatch.json()).toMatchObject({
        error: { status: 'PERMISSION_DENIED', details: [{ errorCode: 'SENDER_ID_MISMATCH' }] },
      });
      const apns = await send(bearer, { message: { token: 'tok-ios-bad-apns' } });
      expect(apns.status).toBe(401);
      expect(await apns.json()).toMatchObject({
        error: { status: 'UNAUTHENTICATED', details: [{ errorCode: 'THIRD_PARTY_AUTH_ERROR' }] },
      });
    });

    it('refuses a send to a project the account does not belong to', async () => {
      const res = await send(bearer, { message: { token: 'tok-valid' } }, 'someone-else');
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: { status: 'PERMISSION_DENIED' } });
    });

    it('answers the next sends 429 (with Retry-After), 503 and 500 when told, then recovers', async () => {
      fake.failNext(1, 429, 30);
      fake.failNext(1, 503);
      fake.failNext(1, 500);
      const body = { message: { token: 'tok-valid' } };
      const quota = await send(bearer, body);
      expect(quota.status).toBe(429);
      expect(quota.headers.get('retry-after')).toBe('30');
      expect(await quota.json()).toMatchObject({
        error: {
          code: 429,
          status: 'RESOURCE_EXHAUSTED',
          details: [{ errorCode: 'QUOTA_EXCEEDED' }],
        },
      });
      const unavailable = await send(bearer, body);
      expect(unavailable.status).toBe(503);
      expect(await unavailable.json()).toMatchObject({
        error: { status: 'UNAVAILABLE', details: [{ errorCode: 'UNAVAILABLE' }] },
      });
      const internal = await send(bearer, body);
      expect(internal.status).toBe(500);
      expect(await internal.json()).toMatchObject({
        error: { status: 'INTERNAL', details: [{ errorCode: 'INTERNAL' }] },
      });
      expect((await send(bearer, body)).status).toBe(200);
    });

    it('refuses connections while stopped and answers again on the same URL once started', async () => {
      const url = fake.url;
      await fake.stop();
      await expect(send(bearer, { message: { token: 'tok-valid' } })).rejects.toThrow();
      await fake.start();
      expect(fake.url).toBe(url);
      expect((await send(bearer, { message: { token: 'tok-valid' } })).status).toBe(200);
    });
  });
});
