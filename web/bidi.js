// User text inside a sentence the page composes (a toast, an announcement, an aria-label): a
// label holding U+202E (RIGHT-TO-LEFT OVERRIDE) would otherwise reverse every word after it
// ("Mallory swapped Invoice · egnarO dna won tsuj"). isolate() wraps it in FIRST STRONG ISOLATE …
// POP DIRECTIONAL ISOLATE, the plain-text form of <bdi>, after taking out its own explicit
// embeddings, overrides and isolates, so that none can close the isolate early or leak out.
// Elements that hold one user text alone are isolated by style.css (`unicode-bidi: isolate`), and
// History lines put each one in a <bdi>.

const EXPLICIT = /[\u202A-\u202E\u2066-\u2069]/g;

/** `text` as an isolated run of a composed sentence. */
export function isolate(text) {
  return `\u2068${String(text ?? '').replace(EXPLICIT, '')}\u2069`;
}

/** `text` without the isolates isolate() adds (what a person reads; for tests and logs). */
export function plain(text) {
  return String(text).replace(/[\u2068\u2069]/g, '');
}

/**
 * `text` as nodes of `doc` for an element: each run isolate() made becomes a <bdi> holding it as
 * text, the rest stays text. (The page shows what it composed with isolate() through this, so
 * that what is read, copied and tested has no isolate characters in it.)
 */
export function isolatedNodes(doc, text) {
  return String(text ?? '').split(/(\u2068[^\u2068\u2069]*\u2069)/).filter((part) => part !== '').map((part) => {
    if (!part.startsWith('\u2068')) return part;
    const bdi = doc.createElement('bdi');
    bdi.textContent = part.slice(1, -1);
    return bdi;
  });
}
