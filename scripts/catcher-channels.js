// The mail catcher's Channels pages: what the development provider fakes took
// (scripts/channel-fakes.js) on every channel, beside the inbox, and how to connect an
// organization to them.
//
//   GET /channels                    the messages page (refreshes itself)
//   GET /channels/messages           JSON list, newest first, one shape for every channel:
//                                    [{id, receivedAt, channel, provider, from, to, text, status,
//                                    callback, …}] (a push has title and body for text)
//   DELETE /channels/messages        forgets them
//   POST /channels/telegram/start    form `start`: a t.me deep link or its start token; a new person
//                                    opens it, and the Telegram fake posts their `/start` update
//   GET /channels/connect            the values and `mp-admin add-provider` lines for each fake
//   POST /channels/accounts/:name/callback-url  form `url`: where the WhatsApp fake (verified
//                                    first, as Meta does) or the Blooio fake posts its callbacks
//   GET /channels/accounts           the same as JSON: {twilio, fcm, apns, whatsapp, telegram,
//                                    blooio, http}
//   GET /channels/accounts/:name/credentials  the credentials file of one fake (fcm: the key)
//   GET /channels/accounts/apns/key.p8        the APNs fake's team key
//
// The credentials are a local fake's, made for this data directory, and the catcher listens on
// loopback only.
const { escapeHtml, page } = require('./catcher-html');
const { addProviderCommand } = require('./channel-fakes');

const LABELS = {
  twilio: 'SMS · Twilio',
  fcm: 'Push · FCM',
  apns: 'Push · APNs',
  whatsapp: 'WhatsApp · Cloud API',
  telegram: 'Telegram · Bot API',
  blooio: 'iMessage · Blooio',
  http: 'Any channel · http provider',
};
const CHANNELS = { sms: 'SMS', push: 'Push', whatsapp: 'WhatsApp', telegram: 'Telegram', imessage: 'iMessage' };
const HTML = 'text/html; charset=utf-8';
const MAX_FORM = 16 * 1024;

function content(m) {
  const media = m.mediaUrls?.length ? ` (+${m.mediaUrls.length} media)` : '';
  if (m.title === undefined) return escapeHtml((m.text ?? '') + media);
  const title = m.title ? `<strong>${escapeHtml(m.title)}</strong>` : '';
  return [title, escapeHtml(m.body ?? m.text ?? '')].filter(Boolean).join(' — ');
}

const status = (m) => escapeHtml(m.callback ? `${m.status} (callback ${m.callback})` : m.status);
const notePara = (note) => (note ? `<p role="status"><strong>${escapeHtml(note)}</strong></p>` : '');

function messagesPage(messages, note) {
  const rows = messages
    .map(
      (m) =>
        `<tr><td>${escapeHtml(m.receivedAt.slice(11, 19))}</td><td>${escapeHtml(CHANNELS[m.channel] ?? m.channel)}</td>` +
        `<td>${escapeHtml(m.provider)}</td><td>${escapeHtml(m.from)}</td><td class="to">${escapeHtml(m.to)}</td>` +
        `<td>${content(m)}</td><td>${status(m)}</td></tr>`,
    )
    .join('');
  return page({
    title: `Channels (${messages.length})`,
    refresh: '/channels',
    nav: 'channels',
    body:
      `<h1>Channels</h1>${notePara(note)}<p>${messages.length} message(s), newest first. What the platform sends ` +
      `through the development fakes of Twilio, FCM, APNs, WhatsApp, Telegram, Blooio and the http provider ` +
      `lands here: <a href="/channels/connect">connect an organization to them</a>.</p>` +
      `<form method="post" action="/channels/telegram/start"><label>Open a Telegram deep link: ` +
      `<input name="start" size="40" placeholder="https://t.me/mp_fake_bot?start=… or the token"></label> ` +
      `<button>Open</button></form>` +
      `<table><thead><tr><th>Time (UTC)</th><th>Channel</th><th>Provider</th><th>From</th><th>To</th>` +
      `<th>Message</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>`,
  });
}

const code = (v) => `<code>${escapeHtml(v)}</code>`;
const link = (href, text) => `<a href="${href}">${escapeHtml(text)}</a>`;

/** A form setting where a fake posts its callbacks, as the provider's dashboard does. */
function callbackForm(name, current, what) {
  return (
    `${current ? code(current) : 'not set'}<form method="post" action="/channels/accounts/${name}/callback-url">` +
    `<input name="url" size="60" placeholder="http://localhost:3000/channels/callbacks/{providerId}"> ` +
    `<button>Set the ${what}</button></form>`
  );
}

/** The fields each fake's account takes, as the dashboard's Channels page names them. */
function fields(name, a, callbackUrls) {
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
    whatsapp: [
      ['Access token', code(a.credentials.accessToken)],
      ['App secret', code(a.credentials.appSecret)],
      ['Phone number ID', code(a.settings.phoneNumberId)],
      ['Business account ID', code(a.settings.businessAccountId)],
      ['Verify token', code(a.settings.verifyToken)],
      ['Callback URL', callbackForm('whatsapp', callbackUrls.whatsapp, 'callback URL')],
    ],
    telegram: [
      ['Bot token', code(a.credentials.botToken)],
      ['Bot username', code(a.settings.botUsername)],
      ['Webhook', `${callbackUrls.telegram ? code(callbackUrls.telegram) : 'not set'} (the platform sets it)`],
    ],
    blooio: [
      ['API key', code(a.credentials.apiKey)],
      ['Signing secret', code(a.credentials.signingSecret)],
      ['From number', code(a.settings.fromNumber)],
      ['Webhook', callbackForm('blooio', callbackUrls.blooio, 'webhook')],
    ],
    http: [
      ['Secret', code(a.credentials.secret)],
      ['URL', code(a.settings.url)],
    ],
  }[name];
  if (a.settings.apiBaseUrl) rows.push(['API base URL', code(a.settings.apiBaseUrl)]);
  return `<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

function connectPage(fakes, note) {
  const callbackUrls = fakes.callbackUrls();
  const sections = Object.entries(fakes.accounts)
    .map(
      ([name, a]) =>
        `<h2>${LABELS[name]}</h2><pre>${escapeHtml(addProviderCommand(a))}</pre>${fields(name, a, callbackUrls)}`,
    )
    .join('');
  return page({
    title: 'Connect to the provider fakes',
    nav: 'channels',
    body:
      `<h1>Connect to the provider fakes</h1>${notePara(note)}<p>Run a line below in the checkout with ` +
      `<code>ORG</code> set to an organization's id, or connect a provider on the dashboard's Channels page ` +
      `with these values. The FCM fake takes any device token; the APNs fake takes tokens of 64 hex digits. ` +
      `WhatsApp and Blooio post to one callback URL each, set here as on their dashboards: ` +
      `<code>{PUBLIC_BASE_URL}/channels/callbacks/{providerId}</code>. ` +
      `What they receive shows on <a href="/channels">Channels</a>.</p>${sections}`,
  });
}

/** The fields of a form-urlencoded body (at most MAX_FORM bytes). */
async function readForm(req) {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > MAX_FORM) break;
  }
  return new URLSearchParams(body.slice(0, MAX_FORM));
}

/** The answer to a form: the page again, with what happened (422 when it did not). */
async function answerForm(req, send, act, render) {
  let result;
  try {
    result = await act(await readForm(req));
  } catch (err) {
    result = { ok: false, message: err.message };
  }
  send(result.ok ? 200 : 422, HTML, render(result.message));
}

/** Serves the pages of `fakes`; `handle` answers true when the request was one of them. */
function channelPages(fakes) {
  const setCallback = (name) => async (form) => {
    const url = form.get('url')?.trim() ?? '';
    if (!/^https?:\/\/[^\s]+$/.test(url)) return { ok: false, message: 'The URL must be an http(s) URL' };
    return fakes.setCallbackUrl(name, url);
  };
  return {
    handle(req, url, send) {
      const p = url.pathname;
      if (p !== '/channels' && !p.startsWith('/channels/')) return false;
      const json = (v) => send(200, 'application/json', JSON.stringify(v));
      const callback = /^\/channels\/accounts\/(whatsapp|blooio)\/callback-url$/.exec(p);
      if (req.method === 'DELETE' && p === '/channels/messages') {
        fakes.clear();
        send(204, 'text/plain', '');
      } else if (req.method === 'POST' && p === '/channels/telegram/start') {
        void answerForm(
          req,
          send,
          (form) => fakes.openTelegramDeepLink(form.get('start')),
          (note) => messagesPage(fakes.messages(), note),
        );
      } else if (req.method === 'POST' && callback) {
        void answerForm(req, send, setCallback(callback[1]), (note) => connectPage(fakes, note));
      } else if (req.method !== 'GET') send(405, 'text/plain', 'method not allowed\n');
      else if (p === '/channels') send(200, HTML, messagesPage(fakes.messages()));
      else if (p === '/channels/messages') json(fakes.messages());
      else if (p === '/channels/connect') send(200, HTML, connectPage(fakes));
      else if (p === '/channels/accounts') {
        const out = {};
        for (const [name, a] of Object.entries(fakes.accounts)) out[name] = { ...a, command: addProviderCommand(a) };
        json(out);
      } else if (p === '/channels/accounts/apns/key.p8') {
        send(200, 'application/x-pem-file', fakes.accounts.apns.credentials.privateKey);
      } else {
        const one = /^\/channels\/accounts\/([a-z]+)\/credentials$/.exec(p);
        const account = one && Object.hasOwn(fakes.accounts, one[1]) && fakes.accounts[one[1]];
        if (!account) send(404, 'text/plain', 'not found\n');
        else json(one[1] === 'fcm' ? account.credentials.serviceAccount : account.credentials);
      }
      return true;
    },
  };
}

module.exports = { channelPages };
