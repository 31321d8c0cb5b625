// The mail catcher's "SMS and push" pages: what the development provider fakes took
// (scripts/channel-fakes.js), beside the inbox, and how to connect an organization to them.
//
//   GET /channels                    the messages page (refreshes itself)
//   GET /channels/messages           JSON list, newest first: [{id, receivedAt, channel, provider,
//                                    from, to, text | title and body, …}]
//   DELETE /channels/messages        forgets them
//   GET /channels/connect            the values and `mp-admin add-provider` lines for each fake
//   GET /channels/accounts           the same as JSON: {twilio, fcm, apns}
//   GET /channels/accounts/:name/credentials  the credentials file of one fake (fcm: the key)
//   GET /channels/accounts/apns/key.p8        the APNs fake's team key
//
// The credentials are a local fake's, made for this data directory, and the catcher listens on
// loopback only.
const { escapeHtml, page } = require('./catcher-html');
const { addProviderCommand } = require('./channel-fakes');

const LABELS = { twilio: 'SMS · Twilio', fcm: 'Push · FCM', apns: 'Push · APNs' };

function content(m) {
  if (m.channel === 'sms') {
    const media = m.mediaUrls.length ? ` (+${m.mediaUrls.length} media)` : '';
    return escapeHtml(m.text) + escapeHtml(media);
  }
  const title = m.title ? `<strong>${escapeHtml(m.title)}</strong>` : '';
  return [title, escapeHtml(m.body ?? '')].filter(Boolean).join(' — ');
}

function status(m) {
  if (m.channel !== 'sms') return 'accepted';
  return escapeHtml(m.callback ? `${m.status} (callback ${m.callback})` : m.status);
}

function messagesPage(messages) {
  const rows = messages
    .map(
      (m) =>
        `<tr><td>${escapeHtml(m.receivedAt.slice(11, 19))}</td><td>${m.channel === 'sms' ? 'SMS' : 'Push'}</td>` +
        `<td>${escapeHtml(m.provider)}</td><td>${escapeHtml(m.from)}</td><td class="to">${escapeHtml(m.to)}</td>` +
        `<td>${content(m)}</td><td>${status(m)}</td></tr>`,
    )
    .join('');
  return page({
    title: `SMS and push (${messages.length})`,
    refresh: true,
    nav: 'channels',
    body:
      `<h1>SMS and push</h1><p>${messages.length} message(s), newest first. SMS and push notifications the ` +
      `platform sends through the development fakes of Twilio, FCM and APNs land here: ` +
      `<a href="/channels/connect">connect an organization to them</a>.</p>` +
      `<table><thead><tr><th>Time (UTC)</th><th>Channel</th><th>Provider</th><th>From</th><th>To</th>` +
      `<th>Message</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>`,
  });
}

/** The fields each fake's account takes, as the dashboard's Channels page names them. */
function fields(name, a) {
  const code = (v) => `<code>${escapeHtml(v)}</code>`;
  const link = (href, text) => `<a href="${href}">${escapeHtml(text)}</a>`;
  const rows = {
    twilio: [
      ['Account SID', code(a.credentials.accountSid)],
      ['Auth token', code(a.credentials.authToken)],
      ['From', `${code(a.settings.from)} (any E.164 number; Twilio's test numbers +1500555000x give its errors)`],
    ],
    fcm: [['Service-account key', link('/channels/accounts/fcm/credentials', 'the JSON key file')]],
    apns: [
      ['Key ID', code(a.credentials.keyId)],
      ['Team ID', code(a.credentials.teamId)],
      ['Private key (.p8)', link('/channels/accounts/apns/key.p8', 'key.p8')],
      ['Bundle ID', code(a.settings.bundleId)],
      ['Environment', code(a.settings.environment)],
    ],
  }[name];
  rows.push(['API base URL', code(a.settings.apiBaseUrl)]);
  return `<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

function connectPage(accounts) {
  const sections = Object.entries(accounts)
    .map(
      ([name, a]) =>
        `<h2>${LABELS[name]}</h2><pre>${escapeHtml(addProviderCommand(a))}</pre>${fields(name, a)}`,
    )
    .join('');
  return page({
    title: 'Connect to the provider fakes',
    nav: 'channels',
    body:
      `<h1>Connect to the provider fakes</h1><p>Run a line below in the checkout with <code>ORG</code> set to ` +
      `an organization's id, or connect a provider on the dashboard's Channels page with these values. ` +
      `The FCM fake takes any device token; the APNs fake takes tokens of 64 hex digits. ` +
      `What they receive shows on <a href="/channels">SMS and push</a>.</p>${sections}`,
  });
}

/** Serves the pages of `fakes`; `handle` answers true when the request was one of them. */
function channelPages(fakes) {
  return {
    handle(req, url, send) {
      const p = url.pathname;
      if (p !== '/channels' && !p.startsWith('/channels/')) return false;
      const json = (v) => send(200, 'application/json', JSON.stringify(v));
      if (req.method === 'DELETE' && p === '/channels/messages') {
        fakes.clear();
        send(204, 'text/plain', '');
      } else if (req.method !== 'GET') send(405, 'text/plain', 'method not allowed\n');
      else if (p === '/channels') send(200, 'text/html; charset=utf-8', messagesPage(fakes.messages()));
      else if (p === '/channels/messages') json(fakes.messages());
      else if (p === '/channels/connect') send(200, 'text/html; charset=utf-8', connectPage(fakes.accounts));
      else if (p === '/channels/accounts') {
        const out = {};
        for (const [name, a] of Object.entries(fakes.accounts)) out[name] = { ...a, command: addProviderCommand(a) };
        json(out);
      } else if (p === '/channels/accounts/apns/key.p8') {
        send(200, 'application/x-pem-file', fakes.accounts.apns.credentials.privateKey);
      } else {
        const one = /^\/channels\/accounts\/(twilio|fcm|apns)\/credentials$/.exec(p);
        if (!one) send(404, 'text/plain', 'not found\n');
        else {
          const c = fakes.accounts[one[1]].credentials;
          json(one[1] === 'fcm' ? c.serviceAccount : c);
        }
      }
      return true;
    },
  };
}

module.exports = { channelPages };
