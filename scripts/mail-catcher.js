#!/usr/bin/env node
// The development mail catcher: an SMTP server that keeps every message it receives in memory
// (the newest 500) and a small web page that shows them. `npm start` runs it and routes the
// worker's outbound mail to it when NODE_ENV is not production and SMTP_OUTBOUND_URL is unset; its
// web server also shows what the provider fakes took (scripts/catcher-channels.js).
// Also runs alone: `node scripts/mail-catcher.js` (MAIL_CATCHER_SMTP_PORT, MAIL_CATCHER_HTTP_PORT).
//
//   GET /                 the inbox page (refreshes itself)
//   GET /messages         JSON list, newest first: [{id, receivedAt, from, to, subject, size}]
//   GET /messages/:id     one message as JSON (headers, text, html); /messages/:id.eml the raw source
//   GET /messages/:id/view  one message as a page (its HTML in a sandboxed frame, scripts off)
//   DELETE /messages      empties the inbox
const http = require('node:http');
const { SMTPServer } = require('smtp-server');
const { simpleParser } = require('mailparser');
const { escapeHtml, page } = require('./catcher-html');

const KEEP = 500;

function summary(m) {
  return { id: m.id, receivedAt: m.receivedAt, from: m.from, to: m.to, subject: m.subject, size: m.raw.length };
}

function inboxPage(messages, nav) {
  const rows = messages
    .map(
      (m) =>
        `<tr><td>${escapeHtml(m.receivedAt.slice(11, 19))}</td><td>${escapeHtml(m.from)}</td><td>${escapeHtml(m.to.join(', '))}</td>` +
        `<td><a href="/messages/${m.id}/view">${escapeHtml(m.subject || '(no subject)')}</a></td></tr>`,
    )
    .join('');
  return page({
    title: `Mail catcher (${messages.length})`,
    refresh: true,
    nav,
    body:
      `<h1>Mail catcher</h1><p>${messages.length} message(s), newest first. Mail the platform sends in development lands here.</p>` +
      `<table><thead><tr><th>Time (UTC)</th><th>From</th><th>To</th><th>Subject</th></tr></thead><tbody>${rows}</tbody></table>`,
  });
}

function messagePage(m) {
  const body = m.html
    ? `<iframe sandbox="" style="width:100%;height:70vh;border:1px solid #ddd" srcdoc="${escapeHtml(m.html)}"></iframe>`
    : `<pre>${escapeHtml(m.text)}</pre>`;
  return page({
    title: m.subject,
    body:
      `<p><a href="/">Inbox</a> · <a href="/messages/${m.id}.eml">source</a></p><h1>${escapeHtml(m.subject || '(no subject)')}</h1>` +
      `<p>From ${escapeHtml(m.from)}<br>To ${escapeHtml(m.to.join(', '))}<br>${escapeHtml(m.receivedAt)}</p>${body}`,
  });
}

function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address().port);
    });
  });
}

/**
 * Starts the catcher; ports 0 take free ones, `smtpPort: null` serves the pages only (outbound mail
 * goes elsewhere). `channels` (scripts/catcher-channels.js) adds the Channels pages. Resolves
 * with its addresses and a close function.
 */
async function startMailCatcher({ smtpPort = 1025, httpPort = 1080, host = '127.0.0.1', channels = null } = {}) {
  const messages = [];
  let next = 1;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    size: 30 * 1024 * 1024,
    onData(stream, session, done) {
      const chunks = [];
      stream.on('data', (c) => chunks.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks);
        try {
          const parsed = await simpleParser(raw);
          messages.unshift({
            id: next++,
            receivedAt: new Date().toISOString(),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '',
            headers: Object.fromEntries([...parsed.headers].map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])),
            text: parsed.text ?? '',
            html: parsed.html || '',
            raw,
          });
          messages.length = Math.min(messages.length, KEEP);
          done();
        } catch (err) {
          done(err);
        }
      });
    },
  });
  const web = http.createServer((req, res) => {
    const send = (status, type, body) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    const url = new URL(req.url, 'http://catcher');
    if (channels?.handle(req, url, send)) return;
    if (smtpPort === null && url.pathname === '/') {
      res.writeHead(302, { location: '/channels' });
      return res.end();
    }
    const one = /^\/messages\/(\d+)(\.eml|\/view)?$/.exec(url.pathname);
    const found = one && messages.find((m) => m.id === Number(one[1]));
    if (req.method === 'DELETE' && url.pathname === '/messages') {
      messages.length = 0;
      return send(204, 'text/plain', '');
    }
    if (req.method !== 'GET') return send(405, 'text/plain', 'method not allowed\n');
    if (url.pathname === '/') return send(200, 'text/html; charset=utf-8', inboxPage(messages, channels && 'mail'));
    if (url.pathname === '/messages') return send(200, 'application/json', JSON.stringify(messages.map(summary)));
    if (!found) return send(404, 'text/plain', 'no such message\n');
    if (one[2] === '.eml') return send(200, 'message/rfc822', found.raw);
    if (one[2] === '/view') return send(200, 'text/html; charset=utf-8', messagePage(found));
    const { raw, ...rest } = found;
    return send(200, 'application/json', JSON.stringify({ ...rest, size: raw.length }));
  });
  const closeSmtp = () => (smtpPort === null ? undefined : new Promise((r) => smtp.close(r)));
  const boundSmtp = smtpPort === null ? null : await listen(smtp.server, smtpPort, host);
  const boundHttp = await listen(web, httpPort, host).catch(async (err) => {
    await closeSmtp();
    throw err;
  });
  return {
    smtpUrl: boundSmtp === null ? null : `smtp://${host}:${boundSmtp}`,
    webUrl: `http://localhost:${boundHttp}`,
    close: () => Promise.all([closeSmtp(), new Promise((r) => web.close(r))]).then(() => undefined),
  };
}

module.exports = { startMailCatcher };

if (require.main === module) {
  startMailCatcher({
    smtpPort: Number(process.env.MAIL_CATCHER_SMTP_PORT || 1025),
    httpPort: Number(process.env.MAIL_CATCHER_HTTP_PORT || 1080),
  }).then(
    (c) => process.stdout.write(`mail catcher: SMTP ${c.smtpUrl}, inbox ${c.webUrl}\n`),
    (err) => {
      process.stderr.write(`could not start the mail catcher: ${err.message}\n`);
      process.exit(1);
    },
  );
}
