// Around the table: your profile (a name and a secret key kept by this browser), its restore
// link, a player's public page (games and rating history) and the leaderboard.
import { html, api, Name, clean, clearSignedOut, SignedOutNotice } from "./ui.js";
import { mutes, loadMutes } from "./mutes.js";

const KEY = "civlite.profile";

/** This browser's profile ({id, name, key}) or null. */
export function myProfile() {
  try { const p = JSON.parse(localStorage.getItem(KEY) || "null"); return p && p.key ? p : null; } catch (e) { return null; }
}
export function keepProfile(p) { localStorage.setItem(KEY, JSON.stringify({ id: p.id, name: p.name, key: p.key })); clearSignedOut(); }
export function forgetProfile() { localStorage.removeItem(KEY); }

const page = { me: null, error: "", newName: "", shown: null, board: null, restored: "" };

const fmt = (x) => (typeof x === "number" ? x.toFixed(1) : "–");

/** ``/profile``: make a profile, or see yours, its restore link, a new key (which revokes the old link). */
export function ProfilePage({ redraw }) {
  const p = myProfile();
  const load = async () => {
    try { page.me = await api("/api/profiles/me", { key: p.key }); page.error = ""; await loadMutes(); } catch (e) { page.me = null; page.error = e.message; }
    redraw();
    if (page.me) loadBlocks(p.key, redraw);
  };
  if (p && !page.me && !page.error) { load(); }
  const create = async (e) => {
    e.preventDefault();
    try {
      const made = await api("/api/profiles", { name: page.newName.trim() });
      keepProfile(made); page.me = made; page.error = ""; page.blocks = [];
      await loadMutes(true); // this device's mutes now follow the profile
    } catch (err) {
      page.error = err.code === "name_taken" ? `The name “${clean(page.newName.trim())}” is taken by another player: choose another. (${err.message})` : err.message;
      page.nameTaken = err.code === "name_taken";
    }
    redraw();
    document.getElementById(page.nameTaken ? "profile-name" : "profile-h")?.focus();
  };
  const rekey = async () => {
    try {
      const got = await api("/api/profiles/me/key", { key: p.key });
      keepProfile(got); page.me = got; page.error = "";
    } catch (err) { page.error = err.message; }
    redraw();
  };
  const abs = (path) => location.origin + path;
  return html`<div class="pagecol" data-testid="profile-page">
    <h1 id="profile-h" tabindex="-1">Your profile</h1>
    <${SignedOutNotice} />
    ${p && page.me ? html`<section class="panel" aria-labelledby="me-h">
        <h2 id="me-h"><${Name} name=${page.me.name} /></h2>
        <p class="muted">Your name was chosen when the profile was made and cannot be changed (a new name needs a new profile).</p>
        <p>Rating <b data-testid="my-rating">${fmt(page.me.rating)}</b> · ${page.me.games} rated ${page.me.games === 1 ? "game" : "games"}
          · <a href=${`/p/${page.me.id}`} data-nav>your public page</a></p>
        <div class="field"><label for="restore-link">Restore link: open it on another device to use this profile there. Keep it secret.</label>
          <input id="restore-link" readonly value=${abs(page.me.restore)} data-testid="restore-link" onFocus=${(e) => e.target.select()} /></div>
        <p data-testid="mute-count">${mutes.set.size ? `Muted in chat: ${mutes.set.size} (kept with this profile, on every device)`
          : "Nobody muted in chat (mutes are kept with this profile, on every device)."}</p>
        <${Blocks} redraw=${redraw} />
        <p><button type="button" data-testid="new-key" onClick=${rekey}>Revoke the link (make a new one)</button>
          <span class="muted"> The old link, and this profile on every other device, stop working.</span></p>
        <p><button type="button" class="linkish" onClick=${() => { forgetProfile(); page.me = null; redraw(); }}>Forget this profile on this device</button></p>
      </section>`
    : html`<section class="panel" aria-labelledby="new-profile-h">
        <h2 id="new-profile-h">Make a profile</h2>
        <p class="muted">A profile is a name and a secret key kept by this browser: no password, no e-mail. Rated tables need one.</p>
        <form onSubmit=${create}><div class="field"><label for="profile-name">Name</label>
          <input id="profile-name" maxlength="40" required value=${page.newName} aria-describedby="name-note profile-error"
            aria-invalid=${page.nameTaken ? "true" : null} data-testid="profile-name"
            onInput=${(e) => { page.newName = e.target.value; if (page.nameTaken) { page.nameTaken = false; page.error = ""; redraw(); } }} />
          <span id="name-note" class="muted">Chosen once: it cannot be changed later, and no two players share a name.</span></div>
          <button type="submit" class="primary" data-testid="make-profile">Make my profile</button></form>
      </section>`}
    <p id="profile-error" class="error" role="alert" data-testid="profile-error">${page.error}</p>
    <p><a href="/leaderboard" data-nav>Leaderboard</a> · <a href="/" data-nav>Lobby</a></p>
  </div>`;
}

/** The profiles this one blocked, with their handles (read from their public pages). */
async function loadBlocks(key, redraw) {
  try {
    const got = await api("/api/profiles/me/blocks", { key });
    const names = await Promise.all(got.blocks.slice(0, 100).map((id) => api(`/api/profiles/${id}`).then((x) => x.name, () => id)));
    page.blocks = got.blocks.map((id, i) => ({ id, name: names[i] ?? id }));
    page.blockError = "";
  } catch (e) { page.blocks = page.blocks || []; page.blockError = e.message; }
  redraw();
}

/** "Blocked": the profiles this one blocked (from a chat line's menu), each with "Unblock". */
function Blocks({ redraw }) {
  const p = myProfile();
  if (!p || !page.blocks) return "";
  const unblock = async (id) => {
    try {
      await api("/api/profiles/me/blocks", { key: p.key, unblock: [id] });
      await loadMutes(); // unblocking lifts the block's mute
    } catch (e) { page.blockError = e.message; }
    await loadBlocks(p.key, redraw);
  };
  return html`<section aria-labelledby="blocks-h" data-testid="blocks"><h3 id="blocks-h">Blocked</h3>
    ${page.blocks.length ? html`<ul class="tablelist">${page.blocks.map((b) => html`<li key=${b.id}>
        <a href=${`/p/${b.id}`} data-nav><${Name} name=${b.name} /></a>
        <button type="button" data-testid=${`unblock-${b.id}`} aria-label=${`Unblock ${clean(b.name)}`} onClick=${() => unblock(b.id)}>Unblock</button></li>`)}</ul>`
      : html`<p class="muted">Nobody. A chat line's “⋯” button blocks the profile that said it: its chat is hidden and you are never seated together.</p>`}
    ${page.blockError ? html`<p class="error" role="alert">${page.blockError}</p>` : ""}
  </section>`;
}

/** ``/restore#key=…``: keep the profile of that key in this browser. */
export async function restore(redraw) {
  const m = /key=([\w-]+)/.exec(location.hash);
  if (!m) { page.error = "This restore link holds no key."; return; }
  try {
    const got = await api("/api/profiles/me", { key: m[1] });
    keepProfile({ ...got, key: m[1] });
    page.me = got; page.error = "";
    loadBlocks(m[1], redraw);
    await loadMutes(true); // the profile's mutes, with this device's added
    history.replaceState({}, "", "/profile");
  } catch (e) { page.error = `This restore link does not work: ${e.message}`; }
  redraw();
}

/** ``/p/<id>``: a player's rating, rating history and tables. */
export function PublicProfile({ id, redraw }) {
  if (!page.shown || page.shown.id !== id) {
    if (!page.loading) {
      page.loading = true;
      api(`/api/profiles/${id}`).then((p) => { page.shown = p; }, (e) => { page.shown = { id, error: e.message }; })
        .finally(() => { page.loading = false; redraw(); });
    }
    return html`<p class="loading" role="status">Loading…</p>`;
  }
  const p = page.shown;
  if (p.error) return html`<div class="pagecol"><h1>Player</h1><p class="error">${p.error}</p></div>`;
  return html`<div class="pagecol" data-testid="public-profile">
    <h1><${Name} name=${p.name} /></h1>
    <p>Rating <b data-testid="rating">${fmt(p.rating)}</b> (μ ${fmt(p.mu)}, σ ${fmt(p.sigma)}) · ${p.games} rated ${p.games === 1 ? "game" : "games"}</p>
    <section class="panel" aria-labelledby="hist-h"><h2 id="hist-h">Rating history</h2>
      ${p.history.length ? html`<table class="standings" data-testid="history"><thead><tr><th scope="col">Table</th><th scope="col">Place</th>
        <th scope="col">Before</th><th scope="col">After</th></tr></thead><tbody>${p.history.map((h) => html`<tr key=${h.table}>
        <td><a href=${`/t/${h.table}`} data-nav><${Name} name=${h.name} /></a></td><td>${h.rank} of ${h.players}</td>
        <td>${fmt(h.before)}</td><td>${fmt(h.after)}</td></tr>`)}</tbody></table>` : html`<p class="muted">No rated game yet.</p>`}
    </section>
    <section class="panel" aria-labelledby="games-h"><h2 id="games-h">Tables</h2>
      ${p.tables.length ? html`<ul class="tablelist" data-testid="games">${p.tables.map((g) => html`<li key=${g.table}>
        <span><b><${Name} name=${g.name} /></b><span class="muted"> seat ${g.seat + 1} · ${g.status}${g.rated ? " · rated" : ""}
        ${g.status === "over" ? (g.winner === g.seat ? " · won" : " · lost") : ""}</span></span>
        <a href=${`/t/${g.table}`} data-nav>${g.status === "over" ? "see" : "watch"}</a></li>`)}</ul>` : html`<p class="muted">No table yet.</p>`}
    </section>
    <p><a href="/leaderboard" data-nav>Leaderboard</a> · <a href="/" data-nav>Lobby</a></p>
  </div>`;
}

/** ``/leaderboard``: the players of rated games, best rating first. */
export function Leaderboard({ redraw }) {
  if (page.board === null && !page.loadingBoard) {
    page.loadingBoard = true;
    api("/api/leaderboard").then((b) => { page.board = b; }, () => { page.board = []; })
      .finally(() => { page.loadingBoard = false; redraw(); });
  }
  const b = page.board;
  return html`<div class="pagecol" data-testid="leaderboard">
    <h1>Leaderboard</h1>
    <p class="muted">Ratings from rated tables (OpenSkill, shown as μ − 3σ); bots keep fixed ratings from the ladder.</p>
    ${b === null ? html`<p class="loading" role="status">Loading…</p>` : b.length ? html`<table class="standings" data-testid="board">
      <thead><tr><th scope="col">#</th><th scope="col">Player</th><th scope="col">Rating</th><th scope="col">Games</th></tr></thead>
      <tbody>${b.map((r) => html`<tr key=${r.id}><td>${r.rank}</td><th scope="row"><a href=${`/p/${r.id}`} data-nav><${Name} name=${r.name} /></a></th>
        <td>${fmt(r.rating)}</td><td>${r.games}</td></tr>`)}</tbody></table>` : html`<p class="muted" data-testid="board-empty">Nobody is ranked yet: a player is listed after 5 rated games against at least 3 different opponents.</p>`}
    <p><a href="/profile" data-nav>Your profile</a> · <a href="/" data-nav>Lobby</a></p>
  </div>`;
}

/** Forget what the pages loaded (a new visit loads them again). */
export function resetPages() { page.board = null; page.shown = null; page.me = null; page.error = ""; page.blocks = null; }

export { clean };
