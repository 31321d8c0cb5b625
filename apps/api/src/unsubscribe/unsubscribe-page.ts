// The two small pages of the unsubscribe link (§14): the GET page with its one button, and the
// answer to the POST. Static text: nothing of the request or the contact is echoed back.

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;' +
  'color:#222}button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}';

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${title}</title><style>${STYLE}</style>` +
    `</head><body><main><h1>${title}</h1>${body}</main></body></html>`
  );
}

/**
 * The GET page: one button that POSTs the RFC 8058 body to this same URL. Following the link
 * (a person, or a scanner that opens every link) changes nothing by itself.
 */
export const CONFIRM_PAGE = page(
  'Unsubscribe',
  `<p>Stop receiving these emails?</p>` +
    `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">` +
    `<button type="submit">Unsubscribe</button></form>`,
);

export const DONE_PAGE = page(
  'You are unsubscribed',
  `<p>You will no longer receive these emails.</p>`,
);

/** A page that runs no script, loads nothing, posts only to itself and cannot be framed. */
export const PAGE_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
