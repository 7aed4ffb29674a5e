// Material's search.highlight marks the words of the `h` parameter on the page a search
// result opens, but only once lunr's index has arrived (components/search/highlight waits
// for search_index.json, which these pages no longer fetch). This marks them the same way:
// <mark data-md-highlight> around each visible occurrence in the page's content.
"use strict";
(function () {
  const query = new URL(location.href).searchParams.get("h");
  const content = document.querySelector("[data-md-component=content]");
  if (!query || !content) return;
  const terms = query
    .split(/\s+/)
    .filter(Boolean)
    .map((term) => term.replace(/[|\\{}()[\]^$+*?.-]/g, "\\$&"));
  if (!terms.length) return;
  // A term matches at the start of a word, as in the search.
  const match = new RegExp(`(^|[^\\p{L}\\p{N}_])(${terms.join("|")})`, "giu");
  const found = [];
  const walk = document.createNodeIterator(content, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    if (node.parentElement && node.parentElement.offsetHeight && match.test(node.nodeValue)) {
      found.push(node);
    }
    match.lastIndex = 0;
  }
  for (const node of found) {
    const parts = document.createDocumentFragment();
    let last = 0;
    for (const hit of node.nodeValue.matchAll(match)) {
      const start = hit.index + hit[1].length;
      parts.append(node.nodeValue.slice(last, start));
      const mark = document.createElement("mark");
      mark.setAttribute("data-md-highlight", "");
      mark.textContent = hit[2];
      parts.append(mark);
      last = start + hit[2].length;
    }
    parts.append(node.nodeValue.slice(last));
    node.replaceWith(parts);
  }
})();
