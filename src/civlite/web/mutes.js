// Whom this player has muted in chat. With a profile the mutes are the profile's, kept by the
// server (so they follow it to every device, loaded when it signs in and when a table opens);
// without one they are kept by this browser only. A mute names a player with a profile
// ("p:<id>", at every table), a seat without one ("t:<table>:<seat>") or a table's
// spectators ("t:<table>:w"); a player's setting "hide spectators" hides them at every table.
import { api } from "./ui.js";

const KEY = "civlite.mutes";
export const HIDE_SPECTATORS = "civlite.hideSpectators";
const MAX = 200; // as many as the server keeps for a profile

const profileKey = () => {
  try { return JSON.parse(localStorage.getItem("civlite.profile") || "null")?.key || null; } catch (e) { return null; }
};

function readLocal() {
  try { const a = JSON.parse(localStorage.getItem(KEY) || "[]"); return new Set(Array.isArray(a) ? a.map(String) : []); } catch (e) { return new Set(); }
}

/** This player's mutes, and the last problem keeping them (shown by the chat). */
export const mutes = { set: readLocal(), error: "" };
const keep = () => localStorage.setItem(KEY, JSON.stringify([...mutes.set]));

export const hideSpectators = () => localStorage.getItem(HIDE_SPECTATORS) === "1";
export function setHideSpectators(on) { localStorage.setItem(HIDE_SPECTATORS, on ? "1" : "0"); }

const spectators = (tableId) => `t:${tableId}:w`;

/** The mutes that hide a line of ``seat`` (null: a spectator, said under ``profile``, if any) at a table. */
function targetsOf(tableId, seats, seat, profile = null) {
  if (seat === null) return [spectators(tableId), ...(profile ? [`p:${profile}`] : [])];
  const p = seats[seat]?.profile;
  return [`t:${tableId}:${seat}`, ...(p ? [`p:${p}`] : [])];
}

/** Whether this player muted ``seat`` (null: the spectators) at this table; a spectator's line
 *  said under a profile (``profile``) is hidden too when that profile is muted (or blocked). */
export const isMuted = (tableId, seats, seat, profile = null) => targetsOf(tableId, seats, seat, profile).some((t) => mutes.set.has(t));

/** Mutes kept by an earlier version, per table and device: moved into the list once. */
export function adoptOld(tableId) {
  const old = `civlite.muted.${tableId}`;
  let list = [];
  try { list = JSON.parse(localStorage.getItem(old) || "[]"); } catch (e) { list = []; }
  localStorage.removeItem(old);
  if (!Array.isArray(list) || !list.length) return [];
  const got = list.map((w) => (w === "spectators" ? spectators(tableId) : `t:${tableId}:${w}`))
    .filter((t) => /^t:[\w-]{1,32}:(w|\d{1,2})$/.test(t) && !mutes.set.has(t));
  got.forEach((t) => mutes.set.add(t));
  keep();
  return got;
}

/** The profile's mutes from the server (this device's list is replaced by them). ``upload``:
 *  mutes added to the profile first: ``true``, all of this device's (when the profile signs in
 *  here), or a list of them. */
export async function loadMutes(upload = false) {
  const key = profileKey();
  if (!key) return false;
  const extra = upload === true ? [...mutes.set] : Array.isArray(upload) ? upload : [];
  try {
    let got;
    try { got = await api("/api/profiles/me/mutes", extra.length ? { key, mute: extra } : { key }); }
    catch (e) { if (!extra.length) throw e; got = await api("/api/profiles/me/mutes", { key }); } // past the bound: read only
    mutes.set = new Set(got.mutes); mutes.error = "";
    keep();
    return true;
  } catch (e) { mutes.error = `Your profile's mutes could not be loaded: ${e.message}`; return false; }
}

let changes = 0; // mute changes sent to the server so far

/** Mute ``seat`` (null: the spectators) at this table, or unmute it. A player with a profile is
 *  muted everywhere they play; the change is kept with this player's profile, if any. */
export async function toggleMute(tableId, seats, seat, redraw) {
  const was = targetsOf(tableId, seats, seat).filter((t) => mutes.set.has(t));
  const add = was.length ? [] : [targetsOf(tableId, seats, seat).at(-1)];
  if (add.length && mutes.set.size >= MAX) { mutes.error = `At most ${MAX} mutes: unmute someone first.`; redraw(); return; }
  const before = new Set(mutes.set);
  add.forEach((t) => mutes.set.add(t)); was.forEach((t) => mutes.set.delete(t));
  mutes.error = ""; keep(); redraw();
  const key = profileKey();
  if (!key) return;
  const n = ++changes; // several clicks in a row: only the last answer is the profile's whole list
  try {
    const got = await api("/api/profiles/me/mutes", { key, mute: add, unmute: was });
    if (n === changes) mutes.set = new Set(got.mutes);
  } catch (e) {
    if (n === changes) mutes.set = before;
    mutes.error = `Not kept with your profile (nothing changed): ${e.message}`;
  }
  keep(); redraw();
}
