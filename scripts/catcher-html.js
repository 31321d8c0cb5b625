// The HTML shared by the mail catcher's pages (scripts/mail-catcher.js, scripts/catcher-channels.js).
const escapeHtml = (s) =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

const STYLE =
  'body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;width:100%}' +
  'td,th{text-align:left;padding:.4em .6em;border-bottom:1px solid #ddd;vertical-align:top}td.to{word-break:break-all}' +
  'nav{margin-bottom:1em}nav a[aria-current]{font-weight:bold;color:inherit;text-decoration:none}' +
  'pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap;word-break:break-all}dt{font-weight:bold}dd{margin:0 0 .4em 1em}';

/**
 * A page: `refresh` reloads it every 5 seconds (a list that grows; a path: loads that path, so the
 * answer to a form is not posted again); `nav` ('mail' or 'channels') links the inbox and the
 * Channels page, marking the current one; without it, no links.
 */
function page({ title, refresh = false, nav = null, body }) {
  const link = (href, name, text) =>
    `<a href="${href}"${nav === name ? ' aria-current="page"' : ''}>${text}</a>`;
  const links = nav ? `<nav>${link('/', 'mail', 'Mail')} · ${link('/channels', 'channels', 'Channels')}</nav>` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">${refresh ? `<meta http-equiv="refresh" content="5${typeof refresh === 'string' ? `; url=${escapeHtml(refresh)}` : ''}">` : ''}
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${links}${body}</body></html>`;
}

module.exports = { escapeHtml, page };
