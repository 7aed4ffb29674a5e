// How a query is cut into words and whether a result holds them: one rule for the search
// box's worker (search-worker.js) and the Explore page (explore.js), which import it.

// Chinese characters are one word each, as in the index (render/search.py: han_apart).
export function queryWords(query) {
  return query
    .replace(/[^\p{L}\p{N}_.\-]+/gu, " ")
    .replace(/\p{sc=Han}/gu, " $& ")
    .split(/\s+/)
    .map((word) => word.replace(/^[.\-]+|[.\-]+$/g, ""))
    .filter(Boolean);
}

// Pagefind answers a word that begins no indexed word with the longest indexed word that
// begins it ("metis" finds "-m"; pagefind_web search.rs, find_word_extensions): such a
// result does not hold the word. A result holds a word when one of its words shares the
// word's first four letters (all of a shorter word): Pagefind matches stems, so "training"
// finds "trained".
export function bare(word) {
  return word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}
export function holds(content, words) {
  // Each word whole ("torchinverse") and in its parts ("torch", "inverse"), as indexed.
  const own = new Set();
  for (const token of content.split(/\s+/)) {
    own.add(bare(token));
    for (const part of token.split(/[^\p{L}\p{N}]+/u)) own.add(bare(part));
  }
  own.delete("");
  return words.map(bare).filter(Boolean).every((word) => {
    const need = word.slice(0, 4);
    for (const found of own) if (found.startsWith(need)) return true;
    return false;
  });
}
