// Shared pieces of the browser client: the view library, cards, names, sentences.
// Names come from players: they are shown only as text (never as HTML), inside <bdi> so a
// right-to-left name cannot reorder the sentence around it, with bidi controls removed.
import { html, render, h } from "./vendor/htm-preact.js";

export { html, render, h };

export const ICONS = ["⚐", "♔", "△", "✎", "⚔", "⌂", "☄", "✿"]; // C L W A M B D X
const LETTERS = "CLWAMBDX";
export const META = { cards: [], suits: [], rulesets: {}, bots: [] };
export const SUIT = new Map(); // card name -> suit index

export function setMeta(meta) {
  Object.assign(META, meta);
  for (const c of meta.cards) SUIT.set(c.name, c.suit);
}

/** A suit as an index, whatever form it comes in (0-7, "W", "WONDER", "Wonder"). */
export function suitIndex(s) {
  if (typeof s === "number") return s;
  if (typeof s !== "string") return 0;
  if (/^\d+$/.test(s)) return +s;
  if (s.length === 1) return Math.max(0, LETTERS.indexOf(s.toUpperCase()));
  const i = META.suits.findIndex((x) => x.name.toLowerCase() === s.toLowerCase());
  return Math.max(0, i);
}
export const suitName = (i) => META.suits[i]?.name ?? "";
export const suitOf = (card) => SUIT.get(card) ?? 0;

// bidi controls (an RLO would reverse what follows it) and other invisible format characters
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
export const clean = (s) => String(s ?? "").replace(UNSAFE, "");

/** A player's name: isolated, cleaned, shortened with an ellipsis by CSS (full name on hover). */
export function Name({ name, you = false }) {
  const n = clean(name);
  return html`<bdi class="name" title=${n}>${n}</bdi>${you ? html`<span class="you"> (you)</span>` : ""}`;
}

// icons drawn as inline SVG (a font may lack ⏮ ⏭ ⏱: Debian's Chromium draws them as empty boxes)
const ICON_PATHS = {
  first: "M5 4h2.2v16H5zM20 4v16L8.6 12z",
  last: "M16.8 4H19v16h-2.2zM4 4l11.4 8L4 20z",
  clock: "M12 4.5a8 8 0 1 0 .01 0zm0 2a6 6 0 1 1-.01 0zM11 8h2v4.6l3 1.8-1 1.7-4-2.4zM9.5 1h5v2h-5z",
};

/** An icon (``first``, ``last``, ``clock``): decorative, so hidden from screen readers (the
 *  control that holds it carries the words). */
export function Icon({ name }) {
  return html`<svg class="icon" viewBox="0 0 24 24" width="1em" height="1em" aria-hidden="true" focusable="false"
    data-icon=${name}><path fill="currentColor" fill-rule="evenodd" d=${ICON_PATHS[name]} /></svg>`;
}

export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function list(items) {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** A long word may break only with a hyphen, never as "Amphitheater / s": soft hyphens keep at
 *  least 4 letters before a break and 3 after (a browser shows the hyphen only where it breaks). */
export const hyphenable = (name) => name.split(" ").map((w) => (w.length < 11 ? w
  : [...w].map((ch, i) => (i >= 4 && i <= w.length - 3 ? "\u00ad" : "") + ch).join(""))).join(" ");

/** A card drawn as a card: a band of its suit's colour with the suit's symbol, then its name.
 *  With ``onClick`` it is a toggle button (aria-pressed). */
export function Card({ name, pressed, onClick, small, disabled, hint, testid, extraClass = "" }) {
  const s = suitOf(name);
  const cls = `card s${s} ${small ? "small" : ""} ${pressed ? "sel" : ""} ${extraClass}`;
  // the name comes first in the page (so it leads the button's accessible name); CSS shows the band on top
  const long = !small && name.split(" ").some((w) => w.length >= 11);
  const inner = html`<span class=${long ? "nm long" : "nm"}>${long ? hyphenable(name) : name}</span>
    <span class="band"><span class="sym" aria-hidden="true">${ICONS[s]}</span><span class="suit"><span class="sr-only">, </span>${suitName(s)}</span></span>
    ${pressed ? html`<span class="tick" aria-hidden="true">✓</span>` : ""}`;
  if (!onClick) {
    return html`<span class=${cls} role="img" aria-label=${`${name} (${suitName(s)})`} data-card=${name}
      data-testid=${testid} title=${hint}>${inner}</span>`;
  }
  return html`<button type="button" class=${cls} aria-pressed=${pressed ? "true" : "false"} disabled=${disabled}
    data-card=${name} data-testid=${testid} title=${hint} onClick=${onClick}>${inner}</button>`;
}

/** Cards in a row (a list, for screen readers). */
export function Cards({ cards, small, empty = "none", testid, label }) {
  if (!cards || !cards.length) return html`<span class="muted" data-testid=${testid}>${empty}</span>`;
  return html`<ul class="cards" data-testid=${testid} aria-label=${label}>${cards.map((c, i) => html`<li key=${`${c}-${i}`}><${Card} name=${c} small=${small} /></li>`)}</ul>`;
}

/** Plain words for a server error (REST): FastAPI's validation list becomes sentences. */
export function plainError(detail, status) {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail.map((d) => {
      const loc = (d.loc || []).filter((x) => x !== "body");
      const FIELDS = { victory_ct: "Victory target", clock: "Turn clock", name: "Name", seats: "Players", rules: "Rules", bot: "bot" };
      let where = loc.map((x) => FIELDS[x] ?? x).join(" ");
      if (loc[0] === "seats" && typeof loc[1] === "number") where = `Seat ${loc[1] + 1}${loc[2] ? ` ${FIELDS[loc[2]] ?? loc[2]}` : ""}`;
      const msg = String(d.msg || "is not valid").replace(/^Value error, /, "").replace(/^(String|Input|List) should (have|be) /, "should $2 ");
      return `${where ? `${where[0].toUpperCase()}${where.slice(1)}: ` : ""}${msg}`;
    }).join(". ");
  }
  return `The server answered ${status || "with an error"}.`;
}

const PROFILE = "civlite.profile";
const SIGNED_OUT = "civlite.signedOut";
const storedKey = () => { try { return JSON.parse(localStorage.getItem(PROFILE) || "null")?.key || null; } catch (e) { return null; } };

/** Whether this browser's profile was signed out because its key was replaced on another device. */
export const signedOut = () => sessionStorage.getItem(SIGNED_OUT) === "1";
export function clearSignedOut() { sessionStorage.removeItem(SIGNED_OUT); }

/** The server's JSON answer to a GET (no ``body``) or a POST of ``body``; an error says why, with
 *  the server's ``code`` and the HTTP ``status``. When the server refuses this browser's stored
 *  profile key as replaced (``bad_key``: it was rotated on another device), the profile is
 *  forgotten here and the pages say so. */
export async function api(path, body) {
  const r = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) {
    const key = storedKey();
    if (data.code === "bad_key" && key && body && (body.key === key || body.profile === key)) {
      localStorage.removeItem(PROFILE);
      sessionStorage.setItem(SIGNED_OUT, "1");
    }
    const err = new Error(plainError(data.detail ?? data.message, r.status));
    err.code = data.code; err.status = r.status;
    throw err;
  }
  return data;
}

/** The notice of a profile signed out here (its key replaced on another device), or nothing. */
export function SignedOutNotice() {
  if (!signedOut() || storedKey()) return "";
  return html`<p class="notice" role="status" data-testid="signed-out">You were signed out of your profile on this device:
    its key was replaced on another device. Open its new restore link here to use it again.</p>`;
}

/** One log line as sentence parts: the rule cited ("R5"), then the text with every "seat N" replaced
 *  by that seat's name (isolated), first letter capitalised. */
export function sentence(text, nameOf, me) {
  const m = /^(R[\d.]+)\s+(.*)$/s.exec(text || "");
  const rule = m ? m[1] : "";
  let body = m ? m[2] : (text || "");
  body = body.replace(/^turn (\d+): /, "Turn $1: ");
  const parts = [];
  const re = /\bseats? ((?:\d+)(?:, \d+)*)/g;
  let last = 0, x;
  while ((x = re.exec(body))) {
    parts.push(body.slice(last, x.index));
    const seats = x[1].split(", ").map(Number);
    seats.forEach((s, i) => {
      if (i) parts.push(i === seats.length - 1 ? " and " : ", ");
      parts.push(html`<${Name} name=${nameOf(s)} you=${s === me} />`);
    });
    last = re.lastIndex;
  }
  parts.push(body.slice(last));
  if (typeof parts[0] === "string" && parts[0]) parts[0] = parts[0][0].toUpperCase() + parts[0].slice(1);
  return { rule, parts };
}

/** The same sentence as plain text (for the live region). */
export function sentenceText(text, nameOf, me) {
  const m = /^(R[\d.]+)\s+(.*)$/s.exec(text || "");
  const body = (m ? m[2] : (text || "")).replace(/\bseats? ((?:\d+)(?:, \d+)*)/g, (_, g) =>
    list(g.split(", ").map((s) => (+s === me ? "you" : clean(nameOf(+s))))));
  return body ? body[0].toUpperCase() + body.slice(1) : body;
}
