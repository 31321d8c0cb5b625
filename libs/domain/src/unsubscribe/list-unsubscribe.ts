// What a recipient gets to leave a list (§14, RFC 2369 and RFC 8058): the List-Unsubscribe and
// List-Unsubscribe-Post headers, and a visible link in each body part, where the content's
// `{{unsubscribe_url}}` stands, else in a one-line footer. Pure functions over the content.
import { escapeHtmlAttribute } from '../messaging/tracking/html-rewriter';

/** Where a message's unsubscribe goes: the one-click URL and the mailto address. */
export interface UnsubscribeTargets {
  url: string;
  mailto: string;
}

/** The placeholder a campaign's html or text may carry (white space inside the braces allowed). */
export const UNSUBSCRIBE_PLACEHOLDER = /\{\{\s*unsubscribe_url\s*\}\}/g;

const BODY_CLOSE = /<\/body\s*>/gi;

/** The two headers of RFC 8058 one-click unsubscribe (the mailto one serves older clients). */
export function listUnsubscribeHeaders(t: UnsubscribeTargets): Record<string, string> {
  return {
    'List-Unsubscribe': `<${t.url}>, <mailto:${t.mailto}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  };
}

/** The text part with its link: the placeholder replaced, else a footer line appended. */
export function textWithLink(text: string, url: string): string {
  if (text.search(UNSUBSCRIBE_PLACEHOLDER) >= 0)
    return text.replace(UNSUBSCRIBE_PLACEHOLDER, () => url);
  return `${text.replace(/\s+$/, '')}\n\nUnsubscribe: ${url}\n`;
}

/** The HTML part with its link: the placeholder replaced, else a footer before the last </body>. */
export function htmlWithLink(html: string, url: string): string {
  const escaped = escapeHtmlAttribute(url);
  if (html.search(UNSUBSCRIBE_PLACEHOLDER) >= 0) {
    return html.replace(UNSUBSCRIBE_PLACEHOLDER, () => escaped);
  }
  const footer =
    `<p style="font-size:12px;color:#666666">You receive this email because you are on our list. ` +
    `<a href="${escaped}">Unsubscribe</a></p>`;
  let at = -1;
  for (const m of html.matchAll(BODY_CLOSE)) at = m.index;
  return at < 0 ? html + footer : html.slice(0, at) + footer + html.slice(at);
}
