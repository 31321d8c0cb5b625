// Generated from docs/openapi.json by `npm run openapi`; do not edit.
/* eslint-disable */
export interface paths {
  '/health/live': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness: the process answers; no dependency is consulted. */
    get: operations['HealthController_live'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness: database and Redis status; 503 when either is down. */
    get: operations['HealthController_health'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Exchanges email and password for a 24-hour access token (`at_...`). After 20 failures from
     *     one IP, or 10 for one account, within 15 minutes: 429 until that window ends.
     */
    post: operations['AuthController_login'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Revokes the access token sent as `Authorization: Bearer at_...`. */
    post: operations['AuthController_logout'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/organizations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The organizations the signed-in user belongs to, with the user's role in each: what a client
     *     needs before it can send `X-Organization-Id`. Takes an access token only (an API key is bound
     *     to one organization already and is refused with 401).
     */
    get: operations['AuthController_organizations'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/api-keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['ApiKeysController_list'];
    put?: never;
    /**
     * Creates a key; its value is returned here once, in `data.key`, and never again. Called with
     *     an API key: only scopes that key holds and limits within its own (omitted limits are bounded
     *     by it), else 403 E_FORBIDDEN.
     */
    post: operations['ApiKeysController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/api-keys/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['ApiKeysController_get'];
    put?: never;
    post?: never;
    /**
     * Revokes the key: it answers 401 from then on, on every replica. Called with an API key: only
     *     itself or keys within its scopes, else 403 E_FORBIDDEN.
     */
    delete: operations['ApiKeysController_revoke'];
    options?: never;
    head?: never;
    /**
     * Called with an API key: the key after the change may carry only scopes the caller holds, and
     *     no limit or expiry may end above both the caller's own and the key's current value (a key
     *     never raises its own). Else 403 E_FORBIDDEN.
     */
    patch: operations['ApiKeysController_update'];
    trace?: never;
  };
  '/api/v1/user/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The credential itself: its organization, type and scopes. Any valid credential; no database read. */
    get: operations['OrganizationController_me'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/organization': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The caller's organization and the scopes of the credential used. Any valid credential. */
    get: operations['OrganizationController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-segments': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['SegmentsController_list'];
    put?: never;
    post: operations['SegmentsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-segments/preview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Count and first 10 contacts that rules select; nothing is stored. */
    post: operations['SegmentsController_preview'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-segments/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['SegmentsController_get'];
    put?: never;
    post?: never;
    delete: operations['SegmentsController_remove'];
    options?: never;
    head?: never;
    patch: operations['SegmentsController_update'];
    trace?: never;
  };
  '/api/v1/user/contact-segments/{id}/members': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Static segments only (dynamic → 409); every id must be a contact of the organization. */
    post: operations['SegmentsController_addMembers'];
    delete: operations['SegmentsController_removeMembers'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-segments/{id}/contacts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The segment's contacts, newest first, with emails and tags (spec). */
    get: operations['SegmentsController_contacts'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/campaigns': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['CampaignsController_list'];
    put?: never;
    post: operations['CampaignsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/campaigns/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['CampaignsController_get'];
    put?: never;
    post?: never;
    /** Drafts only (409 E_BUSINESS_RULE_VIOLATION otherwise). */
    delete: operations['CampaignsController_remove'];
    options?: never;
    head?: never;
    /** Drafts only (409 E_BUSINESS_RULE_VIOLATION otherwise). */
    patch: operations['CampaignsController_update'];
    trace?: never;
  };
  '/api/v1/user/campaigns/{id}/send': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** 202: the recipients are committed and the fan-out runs in the worker. */
    post: operations['CampaignsController_send'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/campaigns/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['CampaignsController_cancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/conversions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** 201 when recorded; 200 with the stored conversion when the orderId was already recorded. */
    post: operations['ConversionsController_record'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/reports/revenue-attribution': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['RevenueReportController_revenueAttribution'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contacts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The organization's contacts with channel records and tags preloaded; meta adds filters. */
    get: operations['ContactsController_list'];
    put?: never;
    post: operations['ContactsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contacts/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One contact with every channel record, tag and list membership. */
    get: operations['ContactsController_get'];
    put?: never;
    post?: never;
    /** Removes the contact, its channel records and its list memberships. */
    delete: operations['ContactsController_delete'];
    options?: never;
    head?: never;
    patch: operations['ContactsController_update'];
    trace?: never;
  };
  '/api/v1/user/contacts/{id}/tags': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Adds tags by name; tags that do not exist yet are created. */
    post: operations['ContactsController_addTags'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contacts/{id}/tags/{tagId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete: operations['ContactsController_removeTag'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contacts/{contactId}/emails': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['ContactChannelsController_addEmail'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contacts/{contactId}/emails/{channelId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete: operations['ContactChannelsController_deleteEmail'];
    options?: never;
    head?: never;
    patch: operations['ContactChannelsController_updateEmail'];
    trace?: never;
  };
  '/api/v1/user/contacts/{contactId}/sms': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['ContactChannelsController_addSms'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contacts/{contactId}/sms/{channelId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete: operations['ContactChannelsController_deleteSms'];
    options?: never;
    head?: never;
    /** Changes the status or the primary flag; the number is immutable (§12.1: unknown contact → 404). */
    patch: operations['ContactChannelsController_updateSms'];
    trace?: never;
  };
  '/api/v1/user/contacts/{contactId}/whatsapp': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['ContactChannelsController_addWhatsapp'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contacts/{contactId}/whatsapp/{channelId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete: operations['ContactChannelsController_deleteWhatsapp'];
    options?: never;
    head?: never;
    patch: operations['ContactChannelsController_updateWhatsapp'];
    trace?: never;
  };
  '/api/v1/user/contacts/{contactId}/telegram': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['ContactChannelsController_addTelegram'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contacts/{contactId}/telegram/{channelId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete: operations['ContactChannelsController_deleteTelegram'];
    options?: never;
    head?: never;
    patch: operations['ContactChannelsController_updateTelegram'];
    trace?: never;
  };
  '/api/v1/user/contacts/{contactId}/imessage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['ContactChannelsController_addImessage'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contacts/{contactId}/imessage/{channelId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete: operations['ContactChannelsController_deleteImessage'];
    options?: never;
    head?: never;
    patch: operations['ContactChannelsController_updateImessage'];
    trace?: never;
  };
  '/api/v1/user/contacts/{contactId}/push': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['ContactChannelsController_addPush'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contacts/{contactId}/push/{channelId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete: operations['ContactChannelsController_deletePush'];
    options?: never;
    head?: never;
    patch: operations['ContactChannelsController_updatePush'];
    trace?: never;
  };
  '/api/v1/user/contact-tags': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Tags by name, with the number of contacts carrying each. */
    get: operations['ContactTagsController_list'];
    put?: never;
    post: operations['ContactTagsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-tags/all': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every tag, id and name only (contactCount is reported as 0). */
    get: operations['ContactTagsController_all'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-tags/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['ContactTagsController_get'];
    put?: never;
    post?: never;
    /** Deletes the tag and removes it from every contact and list. */
    delete: operations['ContactTagsController_delete'];
    options?: never;
    head?: never;
    patch: operations['ContactTagsController_rename'];
    trace?: never;
  };
  '/api/v1/user/contact-lists': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['ContactListsController_list'];
    put?: never;
    post: operations['ContactListsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-lists/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['ContactListsController_get'];
    put?: never;
    post?: never;
    /** Deletes a list and its memberships; the default list answers 409. */
    delete: operations['ContactListsController_delete'];
    options?: never;
    head?: never;
    patch: operations['ContactListsController_update'];
    trace?: never;
  };
  '/api/v1/user/contact-lists/{id}/members': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Memberships, newest first, each with its contact (ContactSummary with emails). */
    get: operations['ContactListsController_members'];
    put?: never;
    /** Subscribes contacts (idempotent); returns their memberships. */
    post: operations['ContactListsController_subscribe'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-lists/{id}/members/{contactId}/unsubscribe': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['ContactListsController_unsubscribe'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-lists/{id}/members/{contactId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete: operations['ContactListsController_removeMember'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/webhook-endpoints': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['WebhookEndpointsController_list'];
    put?: never;
    /** Creates an endpoint; its signing secret is returned here in `data.secret`, and on regeneration. */
    post: operations['WebhookEndpointsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/webhook-endpoints/statistics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['WebhookEndpointsController_statistics'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/webhook-endpoints/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['WebhookEndpointsController_get'];
    put?: never;
    post?: never;
    /** Removes the endpoint, its secret and its delivery history irreversibly. */
    delete: operations['WebhookEndpointsController_remove'];
    options?: never;
    head?: never;
    patch: operations['WebhookEndpointsController_update'];
    trace?: never;
  };
  '/api/v1/user/webhook-endpoints/{id}/regenerate-secret': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['WebhookEndpointsController_regenerateSecret'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/webhook-endpoints/{id}/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sends `test.event` to this endpoint only; returns the delivery. */
    post: operations['WebhookEndpointsController_test'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/webhook-deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Newest first, cursor-paged: `meta` is {limit, hasMore, nextCursor} (§10), which the shared
     *     page envelope does not know, so this handler writes its envelope itself.
     */
    get: operations['WebhookDeliveriesController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/webhook-deliveries/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['WebhookDeliveriesController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/webhook-deliveries/{id}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Resends per the spec's transitions (400 once delivered; not sent once attempts are exhausted). */
    post: operations['WebhookDeliveriesController_retry'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-imports': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Imports newest first; uploaded drafts are not listed. */
    get: operations['ContactImportsController_list'];
    put?: never;
    /**
     * Uploads a CSV (multipart field `file`, up to 200 MB, within the organization's import storage
     *     quota): an `uploaded` draft and a preview.
     */
    post: operations['ContactImportsController_upload'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-imports/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: operations['ContactImportsController_get'];
    put?: never;
    post?: never;
    /** Deletes a draft or finished import and its files. */
    delete: operations['ContactImportsController_delete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-imports/{id}/start': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Starts processing with the chosen mappings: 202, status `queued`. */
    post: operations['ContactImportsController_start'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-imports/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Stops a queued or processing import at its next batch; committed batches stay. */
    post: operations['ContactImportsController_cancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/contact-imports/{id}/errors': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The invalid rows: original columns plus `row` and `error` (text/csv). */
    get: operations['ContactImportsController_errors'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/send': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Accepts an email for delivery: 202 with the job id; delivery happens in the worker. */
    post: operations['SendController_send'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Messages newest first; filters status, recipient, campaignId, from, to. */
    get: operations['MessagesController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/user/messages/{jobId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One message with its delivery attempts and engagement events (each oldest first, ≤ 500). */
    get: operations['MessagesController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    LoginDto: {
      /** Format: email */
      email: string;
      password: string;
    };
    UserOrganizationDto: {
      /** Format: uuid */
      id: string;
      /** @enum {string} */
      plan: 'free' | 'pro' | 'enterprise';
      /**
       * @description The user's role in this organization.
       * @enum {string}
       */
      role: 'owner' | 'admin' | 'member';
      name: string;
    };
    CreateApiKeyDto: {
      name: string;
      /** @description Scopes the key is issued with. */
      scopes: (
        | 'contacts:read'
        | 'contacts:write'
        | 'messages:read'
        | 'messages:send'
        | 'analytics:read'
        | 'analytics:write'
        | 'webhooks:read'
        | 'webhooks:write'
        | 'campaigns:read'
        | 'campaigns:write'
        | 'keys:manage'
      )[];
      /** @description Requests per minute; default 300. */
      rateLimitPerMinute?: number;
      /** @description Requests per UTC day; null for no cap. */
      rateLimitPerDay?: number | null;
      /** Format: date-time */
      expiresAt?: string | null;
    };
    UpdateApiKeyDto: {
      name?: string;
      scopes?: (
        | 'contacts:read'
        | 'contacts:write'
        | 'messages:read'
        | 'messages:send'
        | 'analytics:read'
        | 'analytics:write'
        | 'webhooks:read'
        | 'webhooks:write'
        | 'campaigns:read'
        | 'campaigns:write'
        | 'keys:manage'
      )[];
      rateLimitPerMinute?: number;
      rateLimitPerDay?: number | null;
      /** Format: date-time */
      expiresAt?: string | null;
    };
    CreateSegmentDto: {
      name: string;
      description?: string | null;
      /** @enum {string} */
      type: 'static' | 'dynamic';
      /** @description Dynamic only: `{operator: "and"|"or", conditions: [...]}` (§6), validated by the domain. */
      rules?: {
        [key: string]: unknown;
      };
      /** @description Static only: the initial members. */
      contactIds?: string[];
    };
    PreviewSegmentDto: {
      rules: {
        [key: string]: unknown;
      };
    };
    UpdateSegmentDto: {
      name?: string;
      description?: string | null;
      /** @description Dynamic segments only; a static segment answers 409. */
      rules?: {
        [key: string]: unknown;
      };
    };
    SegmentMembersDto: {
      contactIds: string[];
    };
    CreateCampaignDto: {
      name: string;
      /** @enum {string} */
      channel?: 'email';
      subject: string;
      /** @description html or text (or both) is required. */
      html?: string;
      text?: string;
      from: string;
      /**
       * Format: uuid
       * @description Exactly one of listId and segmentId.
       */
      listId?: string;
      /** Format: uuid */
      segmentId?: string;
    };
    UpdateCampaignDto: {
      name?: string;
      /** @enum {string} */
      channel?: 'email';
      subject?: string;
      /** @description null removes the part; the campaign keeps at least one of html and text. */
      html?: string | null;
      text?: string | null;
      from?: string;
      /**
       * Format: uuid
       * @description Giving one target replaces the other.
       */
      listId?: string;
      /** Format: uuid */
      segmentId?: string;
    };
    RecordConversionDto: {
      /** Format: uuid */
      campaignId: string;
      /** Format: uuid */
      contactId?: string | null;
      /** @description The shop's order id; a repeated orderId records nothing new. */
      orderId: string;
      /** @description Amount in the currency's major unit, at most 2 decimals. */
      revenue: number;
      /** @description ISO 4217 code; default USD. */
      currency?: string;
      /**
       * @description The channel the order is attributed to; default the campaign's channel.
       * @enum {string}
       */
      channel?: 'email' | 'sms' | 'imessage' | 'telegram' | 'push' | 'whatsapp';
      /**
       * Format: date-time
       * @description Default: when the request is received.
       */
      occurredAt?: string;
    };
    CreateEmailDto: {
      /** Format: email */
      email: string;
      /** @enum {string} */
      status?: 'verified' | 'unverified' | 'bounced' | 'complained' | 'suppressed';
      /** Format: date-time */
      verifiedAt?: string | null;
      isPrimary?: boolean;
    };
    CreateSmsDto: {
      phoneNumber: string;
      /** @description Two-letter country code; derived from the calling code when omitted. */
      countryCode?: string;
      /** @enum {string} */
      status?: 'verified' | 'unverified' | 'invalid' | 'opted_out';
      isPrimary?: boolean;
    };
    CreateWhatsappDto: {
      phoneNumber: string;
      countryCode?: string;
      /** @enum {string} */
      status?: 'verified' | 'unverified' | 'blocked';
      isBusinessAccount?: boolean;
      /** Format: date-time */
      lastSeenAt?: string | null;
      isPrimary?: boolean;
    };
    CreateTelegramDto: {
      phoneNumber: string;
      /** @description The handle, without or with its leading @. */
      username?: string | null;
      countryCode?: string;
      /** @enum {string} */
      status?: 'active' | 'inactive' | 'blocked';
      /** Format: date-time */
      lastActiveAt?: string | null;
      isPrimary?: boolean;
    };
    CreateImessageDto: {
      /** Format: email */
      appleId: string;
      phoneNumber?: string | null;
      /** @enum {string} */
      status?: 'verified' | 'unverified' | 'invalid';
      isPrimary?: boolean;
    };
    CreatePushDto: {
      deviceToken: string;
      /** @enum {string} */
      platform: 'ios' | 'android' | 'web';
      /** @enum {string} */
      status?: 'active' | 'inactive' | 'expired';
      appVersion?: string | null;
      deviceInfo?: {
        [key: string]: unknown;
      } | null;
      /** Format: date-time */
      lastUsedAt?: string | null;
      /** Format: date-time */
      expiresAt?: string | null;
      isPrimary?: boolean;
    };
    CreateContactDto: {
      firstName?: string | null;
      lastName?: string | null;
      displayName?: string | null;
      /** @description IANA zone name, e.g. Europe/Paris. */
      timezone?: string | null;
      /** @description Language code, e.g. en or pt-BR. */
      language?: string | null;
      /** @enum {string|null} */
      status?: 'active' | 'inactive' | 'archived' | null;
      notes?: string | null;
      /** @description Tag names; tags that do not exist yet are created. */
      tags?: string[];
      emails?: components['schemas']['CreateEmailDto'][];
      smsNumbers?: components['schemas']['CreateSmsDto'][];
      whatsappAccounts?: components['schemas']['CreateWhatsappDto'][];
      telegramAccounts?: components['schemas']['CreateTelegramDto'][];
      imessageAccounts?: components['schemas']['CreateImessageDto'][];
      pushNotifications?: components['schemas']['CreatePushDto'][];
      /** @description Lists the new contact is subscribed to. */
      listIds?: string[];
      customFields?: {
        [key: string]: unknown;
      } | null;
      /** Format: date-time */
      lastActivityAt?: string | null;
    };
    UpdateContactDto: {
      firstName?: string | null;
      lastName?: string | null;
      displayName?: string | null;
      /** @description IANA zone name, e.g. Europe/Paris. */
      timezone?: string | null;
      /** @description Language code, e.g. en or pt-BR. */
      language?: string | null;
      /** @enum {string|null} */
      status?: 'active' | 'inactive' | 'archived' | null;
      notes?: string | null;
      customFields?: {
        [key: string]: unknown;
      } | null;
      /** Format: date-time */
      lastActivityAt?: string | null;
    };
    AddTagsDto: {
      names: string[];
    };
    UpdateEmailDto: {
      /** @enum {string} */
      status?: 'verified' | 'unverified' | 'bounced' | 'complained' | 'suppressed';
      isPrimary?: boolean;
    };
    UpdateSmsDto: {
      /** @enum {string} */
      status?: 'verified' | 'unverified' | 'invalid' | 'opted_out';
      isPrimary?: boolean;
    };
    UpdateWhatsappDto: {
      /** @enum {string} */
      status?: 'verified' | 'unverified' | 'blocked';
      isBusinessAccount?: boolean;
      /** Format: date-time */
      lastSeenAt?: string | null;
      isPrimary?: boolean;
    };
    UpdateTelegramDto: {
      /** @enum {string} */
      status?: 'active' | 'inactive' | 'blocked';
      /** Format: date-time */
      lastActiveAt?: string | null;
      isPrimary?: boolean;
    };
    UpdateImessageDto: {
      /** @enum {string} */
      status?: 'verified' | 'unverified' | 'invalid';
      isPrimary?: boolean;
    };
    UpdatePushDto: {
      /** @enum {string} */
      status?: 'active' | 'inactive' | 'expired';
      appVersion?: string | null;
      deviceInfo?: {
        [key: string]: unknown;
      } | null;
      /** Format: date-time */
      lastUsedAt?: string | null;
      /** Format: date-time */
      expiresAt?: string | null;
      isPrimary?: boolean;
    };
    TagNameDto: {
      name: string;
    };
    CreateListDto: {
      /** @description Tag names; replaces the list's tags. */
      tags?: string[];
      name: string;
      description?: string | null;
      /** @enum {string} */
      status?: 'active' | 'inactive' | 'archived';
      /** @description Channels a campaign should prefer: email, sms, imessage, telegram, push, whatsapp. */
      preferredChannels?: ('email' | 'sms' | 'imessage' | 'telegram' | 'push' | 'whatsapp')[];
    };
    UpdateListDto: {
      /** @description Tag names; replaces the list's tags. */
      tags?: string[];
      name?: string;
      description?: string | null;
      /** @enum {string} */
      status?: 'active' | 'inactive' | 'archived';
      /** @description Channels a campaign should prefer: email, sms, imessage, telegram, push, whatsapp. */
      preferredChannels?: ('email' | 'sms' | 'imessage' | 'telegram' | 'push' | 'whatsapp')[];
    };
    SubscribeDto: {
      contactIds: string[];
    };
    UnsubscribeDto: {
      reason?: string | null;
    };
    CustomHeaderDto: {
      key: string;
      value: string;
    };
    CreateWebhookEndpointDto: {
      /** @description Where events are POSTed: an http(s) URL, HTTPS expected, reachable from the public internet. */
      url: string;
      description?: string | null;
      /** @description Event types to receive; at least one. */
      events: (
        | 'email.sent'
        | 'email.delivered'
        | 'email.deferred'
        | 'email.bounced'
        | 'email.opened'
        | 'email.clicked'
        | 'email.complained'
        | 'contact.created'
        | 'contact.updated'
        | 'contact.deleted'
        | 'contact.unsubscribed'
        | 'campaign.sent'
        | 'push.token_invalidated'
        | 'test.event'
      )[];
      isActive?: boolean;
      /** @description Total attempts including the first; default 5. */
      maxRetries?: number;
      /** @description Added to every request; a header of the same name as a built-in replaces it. */
      customHeaders?: components['schemas']['CustomHeaderDto'][];
      /** @description Per-attempt timeout in seconds; default 30. */
      timeoutSeconds?: number;
    };
    UpdateWebhookEndpointDto: {
      url?: string;
      description?: string | null;
      events?: (
        | 'email.sent'
        | 'email.delivered'
        | 'email.deferred'
        | 'email.bounced'
        | 'email.opened'
        | 'email.clicked'
        | 'email.complained'
        | 'contact.created'
        | 'contact.updated'
        | 'contact.deleted'
        | 'contact.unsubscribed'
        | 'campaign.sent'
        | 'push.token_invalidated'
        | 'test.event'
      )[];
      isActive?: boolean;
      maxRetries?: number;
      customHeaders?: components['schemas']['CustomHeaderDto'][];
      timeoutSeconds?: number;
    };
    RawResponse: Record<string, never>;
    FieldMappingDto: {
      /** @description A column name of the file's header row, exactly as the preview returned it. */
      csvHeader: string;
      /**
       * @description firstName, lastName, email, phoneNumber, whatsappNumber, telegramUsername, timezone, language,
       *     status, notes, tags (`;`-separated), customFields.<key> or ignore.
       */
      serviceField: string;
    };
    StartImportDto: {
      /** @description Tags every imported contact gets. */
      tags?: string[];
      fieldMappings: components['schemas']['FieldMappingDto'][];
      /**
       * @description skip (default): a duplicate keeps its fields; update: its non-empty cells overwrite them.
       * @enum {string}
       */
      duplicateHandling?: 'skip' | 'update';
      /** @description false (default): one invalid row fails the import with nothing written. */
      allowPartialUpload?: boolean;
      /** @description An existing list of the organization (by name, any case) or a new one. */
      listName?: string | null;
      /** @description Must be true: the contacts in the file agreed to be contacted. */
      consentConfirmed: boolean;
    };
    AttachmentDto: {
      filename: string;
      /** @description The file, base64. Attachments total at most 10 MiB. */
      content: string;
      contentType?: string;
    };
    TrackDto: {
      /** @description Adds an open pixel to the HTML body. */
      opens?: boolean;
      /** @description Sends http(s) links through the signed click redirect. */
      clicks?: boolean;
    };
    SendEmailDto: {
      /** @description `"Name <a@b.c>"`, `a@b.c` or {email, name}. */
      from:
        | string
        | {
            /** Format: email */
            email: string;
            name?: string;
          };
      /** @description One address or an array; To + Cc + Bcc at most 50. */
      to:
        | string
        | {
            /** Format: email */
            email: string;
            name?: string;
          }
        | (
            | string
            | {
                /** Format: email */
                email: string;
                name?: string;
              }
          )[];
      cc?:
        | string
        | {
            /** Format: email */
            email: string;
            name?: string;
          }
        | (
            | string
            | {
                /** Format: email */
                email: string;
                name?: string;
              }
          )[];
      bcc?:
        | string
        | {
            /** Format: email */
            email: string;
            name?: string;
          }
        | (
            | string
            | {
                /** Format: email */
                email: string;
                name?: string;
              }
          )[];
      replyTo?:
        | string
        | {
            /** Format: email */
            email: string;
            name?: string;
          }
        | (
            | string
            | {
                /** Format: email */
                email: string;
                name?: string;
              }
          )[];
      subject: string;
      /** @description html or text is required. */
      html?: string;
      text?: string;
      /** @description Extra headers; names and values without CR or LF. */
      headers?: {
        [key: string]: string;
      };
      attachments?: components['schemas']['AttachmentDto'][];
      tags?: string[];
      /** Format: uuid */
      campaignId?: string;
      /** Format: uuid */
      contactId?: string;
      track?: components['schemas']['TrackDto'];
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  HealthController_live: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  HealthController_health: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AuthController_login: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['LoginDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AuthController_logout: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AuthController_organizations: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {boolean} */
            success: true;
            message: string;
            data: components['schemas']['UserOrganizationDto'][];
          };
        };
      };
    };
  };
  ApiKeysController_list: {
    parameters: {
      query?: {
        page?: number;
        limit?: number;
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ApiKeysController_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateApiKeyDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ApiKeysController_get: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ApiKeysController_revoke: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ApiKeysController_update: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateApiKeyDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  OrganizationController_me: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  OrganizationController_get: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SegmentsController_list: {
    parameters: {
      query?: {
        page?: number;
        limit?: number;
        /** @description `true` counts the members of dynamic segments (static ones always carry their count). */
        withCounts?: 'true' | 'false';
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SegmentsController_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateSegmentDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SegmentsController_preview: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['PreviewSegmentDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SegmentsController_get: {
    parameters: {
      query?: {
        withCounts?: 'true' | 'false';
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SegmentsController_remove: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SegmentsController_update: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateSegmentDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SegmentsController_addMembers: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SegmentMembersDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SegmentsController_removeMembers: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SegmentMembersDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SegmentsController_contacts: {
    parameters: {
      query?: {
        page?: number;
        limit?: number;
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CampaignsController_list: {
    parameters: {
      query?: {
        page?: number;
        limit?: number;
        status?: 'draft' | 'sending' | 'sent' | 'cancelled';
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CampaignsController_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateCampaignDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CampaignsController_get: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CampaignsController_remove: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CampaignsController_update: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateCampaignDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CampaignsController_send: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CampaignsController_cancel: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ConversionsController_record: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['RecordConversionDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  RevenueReportController_revenueAttribution: {
    parameters: {
      query?: {
        /** @description `YYYY-MM-DD` (from the start of that UTC day) or a date-time; inclusive. Default: 29 days before today. */
        from?: string;
        /** @description `YYYY-MM-DD` (through the end of that UTC day) or a date-time; exclusive. Default: end of today (UTC). */
        to?: string;
        channel?: 'email' | 'sms' | 'imessage' | 'telegram' | 'push' | 'whatsapp';
        campaignId?: string;
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  ContactsController_list: {
    parameters: {
      query?: {
        page?: number;
        limit?: number;
        /** @description Name fragment, or an exact email address or phone number. */
        search?: string;
        status?: 'active' | 'inactive' | 'archived';
        channel?: 'email' | 'sms' | 'whatsapp' | 'telegram' | 'imessage' | 'push';
        sortBy?: 'firstName' | 'lastName' | 'createdAt' | 'updatedAt' | 'lastActivityAt';
        sortOrder?: 'asc' | 'desc';
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactsController_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateContactDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  ContactsController_get: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  ContactsController_delete: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactsController_update: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateContactDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  ContactsController_addTags: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['AddTagsDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  ContactsController_removeTag: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
        tagId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  ContactChannelsController_addEmail: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateEmailDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_deleteEmail: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
        channelId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_updateEmail: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
        channelId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateEmailDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_addSms: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateSmsDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_deleteSms: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
        channelId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_updateSms: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
        channelId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateSmsDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_addWhatsapp: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateWhatsappDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_deleteWhatsapp: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
        channelId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_updateWhatsapp: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
        channelId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateWhatsappDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_addTelegram: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateTelegramDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_deleteTelegram: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
        channelId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_updateTelegram: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
        channelId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateTelegramDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_addImessage: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateImessageDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_deleteImessage: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
        channelId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_updateImessage: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
        channelId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateImessageDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_addPush: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreatePushDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_deletePush: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
        channelId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactChannelsController_updatePush: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        contactId: string;
        channelId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdatePushDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactTagsController_list: {
    parameters: {
      query?: {
        page?: number;
        limit?: number;
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactTagsController_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['TagNameDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactTagsController_all: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactTagsController_get: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactTagsController_delete: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactTagsController_rename: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['TagNameDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactListsController_list: {
    parameters: {
      query?: {
        page?: number;
        limit?: number;
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactListsController_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateListDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactListsController_get: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactListsController_delete: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactListsController_update: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateListDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactListsController_members: {
    parameters: {
      query?: {
        page?: number;
        limit?: number;
        status?: 'subscribed' | 'unsubscribed';
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactListsController_subscribe: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SubscribeDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>[];
        };
      };
    };
  };
  ContactListsController_unsubscribe: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
        contactId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UnsubscribeDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  ContactListsController_removeMember: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
        contactId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhookEndpointsController_list: {
    parameters: {
      query?: {
        page?: number;
        limit?: number;
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhookEndpointsController_create: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateWebhookEndpointDto'];
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhookEndpointsController_statistics: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  WebhookEndpointsController_get: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhookEndpointsController_remove: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhookEndpointsController_update: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateWebhookEndpointDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhookEndpointsController_regenerateSecret: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhookEndpointsController_test: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  WebhookDeliveriesController_list: {
    parameters: {
      query?: {
        limit?: number;
        webhookEndpointId?: string;
        /** @description Repeatable: `status=failed&status=pending`. */
        status?: ('pending' | 'delivered' | 'failed')[];
        type?:
          | 'email.sent'
          | 'email.delivered'
          | 'email.deferred'
          | 'email.bounced'
          | 'email.opened'
          | 'email.clicked'
          | 'email.complained'
          | 'contact.created'
          | 'contact.updated'
          | 'contact.deleted'
          | 'contact.unsubscribed'
          | 'campaign.sent'
          | 'push.token_invalidated'
          | 'test.event';
        /** @description `true` adds each delivery's attempts. */
        includeAttempts?: boolean;
        /** @description From `meta.nextCursor` of the previous page. */
        cursor?: string;
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RawResponse'];
        };
      };
    };
  };
  WebhookDeliveriesController_get: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  WebhookDeliveriesController_retry: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  ContactImportsController_list: {
    parameters: {
      query?: {
        page?: number;
        limit?: number;
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactImportsController_upload: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'multipart/form-data': {
          /** Format: binary */
          file?: string;
        };
      };
    };
    responses: {
      201: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactImportsController_get: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactImportsController_delete: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactImportsController_start: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['StartImportDto'];
      };
    };
    responses: {
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactImportsController_cancel: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ContactImportsController_errors: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RawResponse'];
        };
      };
    };
  };
  SendController_send: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SendEmailDto'];
      };
    };
    responses: {
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
    };
  };
  MessagesController_list: {
    parameters: {
      query?: {
        page?: number;
        limit?: number;
        /** @description Message status: queued, deferred, delivered, partially_delivered, bounced, failed, suppressed. */
        status?:
          | 'queued'
          | 'deferred'
          | 'delivered'
          | 'partially_delivered'
          | 'bounced'
          | 'failed'
          | 'suppressed';
        /** @description Messages with this exact recipient address. */
        recipient?: string;
        campaignId?: string;
        /** @description Created at or after (ISO 8601). */
        from?: string;
        /** @description Created at or before (ISO 8601). */
        to?: string;
      };
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  MessagesController_get: {
    parameters: {
      query?: never;
      header?: {
        /** @description Required with an access token */
        'X-Organization-Id'?: string;
      };
      path: {
        jobId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
}
