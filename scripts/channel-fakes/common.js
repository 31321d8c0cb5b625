// What the development provider fakes (scripts/channel-fakes.js) share: their files in
// $DATA_DIR/channel-fakes/, the bound on what they keep, and the log of the callbacks they post.
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

/** What each fake keeps for the Channels page (the newest); older messages are dropped. */
const KEEP = 500;
/**
 * A status callback waits this long after the send: the platform stores the message's provider id
 * once the provider's answer reaches it, and a callback that came first would find no message.
 */
const CALLBACK_DELAY_MS = 1000;

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

const writeJson = (file, value) =>
  writeFileSync(file, JSON.stringify(value, null, 2) + '\n', { mode: 0o600 });

/** The credentials kept in `file`, or those `make` returns, written there first. */
function keptCredentials(file, make) {
  const kept = readJson(file);
  if (kept) return kept;
  const made = make();
  writeJson(file, made);
  return made;
}

/** Drops all but the newest KEEP entries of a fake's list (oldest first). */
const trim = (list) => list.length > KEEP && list.splice(0, list.length - KEEP);

/** Stamps each entry pushed on a fake's list with the time it came (`at`), for those without one. */
function stampOnPush(list) {
  list.push = (...items) => {
    for (const item of items) item.at = new Date();
    return Array.prototype.push.apply(list, items);
  };
}

/**
 * The callback URLs set on the fakes whose provider keeps one per app or organization (WhatsApp's
 * callback URL, Blooio's webhook), kept in webhooks.json so a connected account keeps getting its
 * callbacks after a restart.
 */
function webhookStore(dir) {
  const file = path.join(dir, 'webhooks.json');
  const urls = readJson(file) ?? {};
  return {
    get: (name) => urls[name] ?? null,
    set(name, url) {
      if (urls[name] === url) return;
      urls[name] = url;
      writeJson(file, urls);
    },
  };
}

/**
 * What the platform answered to each message's callbacks, by message id. `run` posts a message's
 * callbacks once, in order: each step resolves with the HTTP status (and its own `label`); an
 * unreachable platform stops the steps.
 */
function callbackLog() {
  const seen = new Map();
  return {
    get: (id) => seen.get(id) ?? null,
    has: (id) => seen.has(id),
    run(id, steps) {
      if (seen.has(id)) return;
      seen.set(id, 'pending');
      void (async () => {
        for (const [label, post] of steps) {
          try {
            const res = await post();
            seen.set(id, `${res.label ?? label}: HTTP ${res.status}`);
          } catch (err) {
            seen.set(id, `${label}: ${err.cause?.code ?? err.message}`);
            return;
          }
        }
      })();
    },
    /** Forgets the callbacks of messages no longer kept. */
    keep(ids) {
      for (const id of seen.keys()) if (!ids.has(id)) seen.delete(id);
    },
    clear: () => seen.clear(),
  };
}

module.exports = {
  CALLBACK_DELAY_MS,
  callbackLog,
  keptCredentials,
  readJson,
  stampOnPush,
  trim,
  webhookStore,
  writeJson,
};
