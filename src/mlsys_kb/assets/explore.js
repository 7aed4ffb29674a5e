// The Explore page: facets (kind, topic, venue, year, tag) and words, answered from the
// Pagefind index the build writes (render/search.py makes its records). The state lives in
// the address, named after the catalog fields and repeated for several values:
// explore/?kind=papers&venue=osdi&year=2021&year=2022&q=... Within a facet any chosen value
// matches; across facets all must. Every text from the index is set as text, never as HTML.

import { holds, queryWords } from "./words.js";

const FACETS = ["kind", "topic", "venue", "year", "tag"];
const PAGE = 50; // results drawn at a time

const root = document.querySelector(".kb-explore");
const labels = JSON.parse(root.querySelector(".kb-explore__labels").textContent);
const form = root.querySelector(".kb-explore__query");
const input = form.querySelector("input[name=q]");
const count = root.querySelector("[data-result-count]");
const list = root.querySelector(".kb-explore__list");
const more = root.querySelector(".kb-explore__more");
const pagefind = import(new URL(root.dataset.index, document.baseURI).href).then(async (pf) => {
  await pf.options({ excerptLength: 0 }); // results link to meta.permalink, not Pagefind's url
  await pf.init();
  // A search counts values only of the filters whose chunks are loaded; this loads them all.
  await pf.filters();
  return pf;
});
const siteRoot = new URL(root.dataset.index.replace(/pagefind\/pagefind\.js$/, ""), document.baseURI);

// What the reader has chosen: {q: "...", kind: Set, topic: Set, ...}
function readState(search) {
  const params = new URLSearchParams(search);
  const state = { q: params.get("q") || "" };
  for (const facet of FACETS) state[facet] = new Set(params.getAll(facet));
  return state;
}

function address(state) {
  const params = new URLSearchParams();
  if (state.q) params.set("q", state.q);
  for (const facet of FACETS) for (const value of state[facet]) params.append(facet, value);
  const query = params.toString();
  return query ? `?${query}` : location.pathname;
}

// The page's template took `q` out of the address, so that Material's search box does not
// open with it (templates/main.html); it goes back in here.
let state = readState(root.dataset.address ?? location.search);
if (root.dataset.address) history.replaceState(null, "", address(state));
let drawn = 0;
let results = [];
let asked = 0;

function filtersOf(chosen, except) {
  // Only entries: topics and hand-written pages are in the index without a kind.
  const filters = { kind: { any: chosen.kind.size && except !== "kind" ? [...chosen.kind] : Object.keys(labels.kind) } };
  for (const facet of FACETS) {
    if (facet === "kind" || facet === except || !chosen[facet].size) continue;
    filters[facet] = { any: [...chosen[facet]] };
  }
  return filters;
}

function words(query) {
  // As the search box does: Pagefind needs every word to match (words.js).
  return queryWords(query).join(" ") || null;
}

async function update() {
  const mine = ++asked;
  count.dataset.resultCount = ""; // empty until this view's results are drawn
  const pf = await pagefind;
  const term = words(state.q);
  const sort = { year: "desc" };
  const main = await pf.search(term, { filters: filtersOf(state), sort });
  // Counts for a facet with chosen values come from the search without that facet, so
  // that each value says how many entries choosing it (too) would list.
  const counts = {};
  await Promise.all(FACETS.map(async (facet) => {
    if (facet !== "kind" && !state[facet].size) return;
    const other = await pf.search(term, { filters: filtersOf(state, facet), sort });
    counts[facet] = other.filters[facet] || {};
  }));
  if (mine !== asked) return;
  results = main.results;
  // A word Pagefind answered with a shorter word matches nothing: the first result tells.
  const first = term && results.length ? await results[0].data() : null;
  if (mine !== asked) return;
  const nothing = first && !holds(first.content, term.split(" "));
  if (nothing) results = [];
  for (const facet of FACETS) {
    drawFacet(facet, nothing ? {} : counts[facet] || main.filters[facet] || {});
  }
  const n = results.length;
  list.replaceChildren();
  more.hidden = true;
  drawn = 0;
  await drawMore(mine);
  if (mine !== asked) return;
  // Said once the first results are on the page, so that the count and the list agree.
  count.dataset.resultCount = String(n);
  count.textContent = n === 0
    ? "No entries match. Remove a filter or change the words."
    : `${n} ${n === 1 ? "entry matches" : "entries match"}, newest first.`;
}

async function drawMore(mine) {
  const next = results.slice(drawn, drawn + PAGE);
  const data = await Promise.all(next.map((result) => result.data()));
  if (mine !== asked) return;
  drawn += next.length;
  for (const item of data) list.append(resultItem(item.meta));
  more.hidden = drawn >= results.length;
  const left = results.length - drawn;
  more.textContent = `Show ${Math.min(PAGE, left)} more of ${left}`;
}

function resultItem(meta) {
  const item = document.createElement("li");
  item.className = "kb-explore__item";
  item.dataset.entryId = meta.id || "";
  const link = document.createElement("a");
  link.href = new URL((meta.permalink || "").replace(/^\//, ""), siteRoot).href;
  link.textContent = meta.title || meta.id;
  const heading = document.createElement("span");
  heading.className = "kb-explore__title";
  heading.append(link);
  const by = document.createElement("span");
  by.className = "kb-explore__byline";
  by.textContent = meta.byline && meta.byline !== meta.kind ? meta.byline : "";
  const where = document.createElement("span");
  where.className = "kb-explore__where";
  where.textContent = [meta.kind, [meta.venue, meta.year].filter(Boolean).join(" ")]
    .filter(Boolean).join(" · ");
  item.append(heading, by, where);
  return item;
}

function valueOrder(facet, counts) {
  const values = new Set([...Object.keys(counts), ...state[facet]]);
  const named = labels[facet];
  if (facet === "year") return [...values].sort((a, b) => b.localeCompare(a));
  if (facet === "kind" || facet === "topic") {
    return Object.keys(named).filter((value) => values.has(value));
  }
  return [...values].sort((a, b) => (named[a] || a).localeCompare(named[b] || b));
}

function drawFacet(facet, counts) {
  const box = root.querySelector(`[data-facet=${facet}] .kb-facet__values`);
  const focused = document.activeElement && box.contains(document.activeElement)
    ? document.activeElement.value : null;
  box.replaceChildren();
  for (const value of valueOrder(facet, counts)) {
    const n = counts[value] || 0;
    const chosen = state[facet].has(value);
    if (!n && !chosen) continue;
    const label = document.createElement("label");
    label.className = "kb-facet__value";
    if (facet === "topic") label.style.paddingLeft = `${(labels.depth[value] || 0) * 0.8}rem`;
    const box_ = document.createElement("input");
    box_.type = "checkbox";
    box_.name = facet;
    box_.value = value;
    box_.checked = chosen;
    box_.addEventListener("change", () => {
      if (box_.checked) state[facet].add(value); else state[facet].delete(value);
      history.pushState(null, "", address(state));
      update();
    });
    const name = document.createElement("span");
    name.textContent = facet === "year" ? value : (labels[facet] && labels[facet][value]) || value;
    const number = document.createElement("span");
    number.className = "kb-facet__count";
    number.textContent = String(n);
    label.append(box_, " ", name, " ", number);
    box.append(label);
    if (value === focused) box_.focus();
  }
}

let typing;
input.addEventListener("input", () => {
  clearTimeout(typing);
  typing = setTimeout(() => {
    const first = !state.q !== !input.value.trim();
    state.q = input.value.trim();
    // One history entry per search, not per keystroke.
    (first ? history.pushState : history.replaceState).call(history, null, "", address(state));
    update();
  }, 200);
});
form.addEventListener("submit", (event) => event.preventDefault());
form.addEventListener("reset", () => {
  state = readState("");
  history.pushState(null, "", address(state));
  setTimeout(update);
});
let drawing = null; // one "Show more" at a time
more.addEventListener("click", () => {
  drawing ??= drawMore(asked).finally(() => {
    drawing = null;
  });
});
window.addEventListener("popstate", () => {
  state = readState(location.search);
  input.value = state.q;
  update();
});

if (window.matchMedia("(max-width: 44.9375em)").matches) {
  // On a phone the facets start closed (but those in use), so that the results are in sight.
  for (const details of root.querySelectorAll(".kb-facet")) {
    details.open = state[details.dataset.facet].size > 0;
  }
}
input.value = state.q;
update();
