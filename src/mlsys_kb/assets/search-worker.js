// The search behind Material's search box: a worker that speaks Material for MkDocs 9.8.1's
// search worker protocol (see templates/main.html) and answers from the Pagefind index.
//
// Material starts this file as a classic Worker; Pagefind's pagefind.js is an ES module,
// which a classic worker loads with import(). Material never sends SETUP here (the page
// does not fetch search_index.json), so the worker says READY as soon as it starts.
"use strict";

const SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
// Results loaded, in one answer: Material redraws the whole list on every answer, so a
// second, longer one would take the reader's place in the list away. The rest are on the
// Explore page, which the last group links to. Each result loads a fragment of its own
// before anything is drawn: at 10,000 papers, 50 of them made the first result 0.5 s later
// than 10 (measured with scripts/bench_site.py's first_results). Material draws the first
// ten groups of an answer and the rest only when the reader scrolls to the end: nine
// results and the link to all of them are drawn at once.
const MOST = 9;
const PAUSE = 80; // ms without a keystroke before searching: each query loads fragments

// This file is served from <site>/assets/javascripts/mlsys-kb/.
const root = new URL("../../../", self.location.href);
const pagefind = import(new URL("pagefind/pagefind.js", root).href).then(async (module) => {
  // Already in a worker: Pagefind need not start one of its own.
  await module.options({ baseUrl: root.pathname, excerptLength: 24, noWorker: true });
  // The hand-written pages have an index of their own (src/mlsys_kb/search_index.py).
  if (new URLSearchParams(self.location.search).has("pages")) {
    await module.mergeIndex(new URL("pagefind-pages/", root).href);
  }
  await module.init();
  return module;
});

// The word rules shared with the Explore page: an ES module, loaded as pagefind.js is.
let bare, holds, queryWords;
const shared = import(new URL("words.js", self.location.href).href).then((module) => {
  ({ bare, holds, queryWords } = module);
});

let latest = 0;
self.postMessage({ type: READY });
// Once more when Pagefind is loaded: Material listens for the first READY only, and a page
// that had not yet subscribed would otherwise never search.
pagefind.then(() => self.postMessage({ type: READY }));

self.addEventListener("message", async ({ data }) => {
  if (data.type !== QUERY) return; // SETUP carries lunr's index, which is not used
  const asked = ++latest;
  await shared;
  const query = data.data || "";
  const words = withoutStopWords(queryWords(query));
  if (!words.length) {
    self.postMessage({ type: RESULT, data: { items: [] } });
    return;
  }
  const engine = await pagefind;
  await new Promise((resolve) => setTimeout(resolve, PAUSE));
  if (asked !== latest) return; // the reader is still typing
  const search = await engine.search(words.join(" "));
  if (asked !== latest || !search) return;
  const found = search.results;
  const send = (loaded, more) => {
    if (asked !== latest) return;
    const ranked = nameFirst(loaded.filter((r) => holds(r.content, words)), words);
    const items = ranked.map((result, rank) => group(result, words, ranked.length - rank));
    if (more > 0) items.push(exploreGroup(query, found.length));
    const suggest = suggestion(query, ranked[0]);
    self.postMessage({ type: RESULT, data: { items, suggest } });
  };
  const loaded = await Promise.all(found.slice(0, MOST).map((r) => r.data()));
  send(loaded, found.length - loaded.length);
});

// Pagefind requires every word to match, and a pasted error message is full of quotes,
// colons and brackets: keep only words, the way Pagefind splits the indexed text.
// Each word of a query loads one chunk of the index (about 22 KB at 10,000 papers), and a
// pasted error message is long: in a query of four words or more, the words that nearly
// every text holds are left out. They would narrow nothing.
const STOP = new Set(("a an and are as at be by for from in is it of on or that the this to " +
  "was were with").split(" "));
function withoutStopWords(words) {
  if (words.length < 4) return words;
  const kept = words.filter((word) => !STOP.has(word.toLowerCase()));
  return kept.length ? [...new Set(kept)] : words;
}

// A query that names an entry puts that entry first: its id, its title, or the name
// before the colon of a title ("DistDGL" for "DistDGL: Distributed ..."); papers before the
// decks and posts about them.
const KINDS = ["Paper", "Resource", "GitHub issue", "Seminar deck"];
function nameFirst(results, words) {
  const wanted = words.join(" ").toLowerCase();
  const names = (r) => [r.meta.title, (r.meta.title || "").split(":")[0], r.meta.id]
    .filter(Boolean)
    .map((name) => queryWords(name).join(" ").toLowerCase());
  const rank = (r) => (KINDS.includes(r.meta.kind) ? KINDS.indexOf(r.meta.kind) : KINDS.length);
  const exact = results.filter((r) => names(r).includes(wanted));
  exact.sort((a, b) => rank(a) - rank(b));
  // Then those that show the words they matched: the pages' index is merged in, and its
  // scores, from a few dozen sections, are not comparable with the catalog's.
  const rest = results.filter((r) => !exact.includes(r));
  const shown = (r) => (r.excerpt || "").includes("<mark>");
  return [...exact, ...rest.filter(shown), ...rest.filter((r) => !shown(r))];
}

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
function escapeHTML(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

// Pagefind's excerpt is the indexed text with < and > escaped (not & or quotes) and <mark>
// around matches: made plain again, then escaped in full, with only the marks let through.
// Chinese characters were indexed one word each; they are shown without the spaces.
function safeExcerpt(excerpt) {
  const plain = (excerpt || "").replace(/&lt;/g, "<").replace(/&gt;/g, ">");
  return escapeHTML(plain)
    .replace(/&lt;(\/?)mark&gt;/g, "<$1mark>")
    .replace(/(\p{sc=Han}(?:<\/mark>)?) (?=(?:<mark>)?\p{sc=Han})/gu, "$1");
}

// The words under a result: Pagefind's excerpt, around the words found; but where that is
// the title again (a query that names the entry), the text after the title, the query's
// words marked as Pagefind marks them.
function teaser(result, words) {
  const title = (result.meta.title || "").split(/\s+/).map(bare).join(" ");
  const plain = (result.excerpt || "").replace(/<\/?mark>/g, "");
  const start = plain.split(/\s+/).map(bare).join(" ");
  if (!title || !start.startsWith(title.slice(0, 40))) return safeExcerpt(result.excerpt);
  const skip = result.meta.title.split(/\s+/).length;
  const id = bare(result.meta.id || "");
  // The entry's id closes the indexed text (it finds the entry; it says nothing).
  const tokens = (result.content || "").split(/\s+/).filter((token) => !id || bare(token) !== id);
  const after = tokens.slice(skip, skip + 24);
  const wanted = words.map(bare).filter(Boolean).map((word) => word.slice(0, 4));
  return after
    .map((token) => {
      const found = wanted.some((word) => bare(token).startsWith(word));
      return found ? `<mark>${escapeHTML(token)}</mark>` : escapeHTML(token);
    })
    .join(" ")
    .replace(/(\p{sc=Han}(?:<\/mark>)?) (?=(?:<mark>)?\p{sc=Han})/gu, "$1");
}

// One result as Material's result list draws it: the entry's title as the heading, and
// under it a line saying what it is, with the matching words in context. Both link to the
// entry's own anchor.
function group(result, words, score) {
  const meta = result.meta;
  const location = new URL((meta.permalink || result.url).replace(/^\//, ""), root).href;
  const terms = Object.fromEntries(words.map((word) => [word.toLowerCase(), true]));
  const title = escapeHTML(meta.title || meta.permalink);
  const where = [meta.kind, [meta.venue, meta.year].filter(Boolean).join(" ")]
    .filter(Boolean).join(" · ");
  const line = escapeHTML([where, shortByline(meta)].filter(Boolean).join(" · "));
  const excerpt = teaser(result, words);
  if (!location.includes("#")) {
    return [{ location, title, text: excerpt, score, terms }];
  }
  // Material draws the document without an anchor as the heading; with none, the last.
  return [
    { location, title: line || title, text: excerpt, score, terms },
    { location, title, text: "", score, terms },
  ];
}

function shortByline(meta) {
  if (meta.kind !== "Paper") return meta.kind === meta.byline ? "" : meta.byline || "";
  const authors = (meta.byline || "").split(", ");
  return authors.length > 3 ? `${authors.slice(0, 3).join(", ")} et al.` : meta.byline;
}

// The last group links to the Explore page, which lists the entries only (not topics or
// the hand-written pages' sections), so it names no number; it carries the total of this
// answer for the page's result count (templates/main.html), which Material would otherwise
// give as the number of groups.
function exploreGroup(query, total) {
  const location = new URL(`explore/?q=${encodeURIComponent(query)}`, root).href;
  const title = `All matching entries on the Explore page<span hidden data-kb-total="${total}"></span>`;
  return [{ location, title, text: "", score: 0, terms: {} }];
}

// Material completes the last word the reader is typing from `suggest`: a word of the
// best result's title that starts with it.
function suggestion(query, best) {
  const typed = query.split(/[\s-]+/).pop();
  if (!typed || !best) return [];
  const match = queryWords(best.meta.title || "").find(
    (word) => word.length > typed.length && word.toLowerCase().startsWith(typed.toLowerCase()),
  );
  return match && /^[\p{L}\p{N}_]+$/u.test(match) ? [typed + match.slice(typed.length)] : [];
}
