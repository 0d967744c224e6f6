// The page's service worker (docs/web-client.md, "Unsaved changes and working offline"): keeps
// the client's files so that a board opens while the server is down (the last board seen and the
// changes not yet saved are in IndexedDB: sdk/queue.js). Network first: while the server answers,
// every file comes from it (and the copy kept is refreshed); only when it does not is the copy
// used. The API, the WebSocket and the metrics are never touched.

const CACHE = 'shuffleboard-web-1';

/** True for a GET of one of the client's own files (not the API, the socket or the metrics). */
function isClientFile(request) {
  if (request.method !== 'GET') return false;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return false;
  return !/^\/(api|ws|metrics|events)(\/|$)/.test(url.pathname);
}

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.add('./')).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

// The page names the files it loaded (performance entries): all of them are kept, then it is told.
self.addEventListener('message', (event) => {
  const urls = Array.isArray(event.data?.cache) ? event.data.cache : [];
  const files = urls.filter((u) => typeof u === 'string').map((u) => new Request(u)).filter(isClientFile).slice(0, 500);
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    let ok = true;
    for (const r of files) {
      try {
        await cache.add(r);
      } catch {
        ok = false; // the server went away meanwhile: the next load tries again
      }
    }
    event.source?.postMessage({ cached: ok });
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (!isClientFile(request)) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const response = await fetch(request);
      if (response.ok && response.type === 'basic') {
        // The page itself is kept under './' whatever its query (?board=…).
        await cache.put(request.mode === 'navigate' ? './' : request, response.clone());
      }
      return response;
    } catch (error) {
      const kept = request.mode === 'navigate'
        ? await cache.match('./')
        : await cache.match(request, { ignoreSearch: true });
      if (kept) return kept;
      throw error;
    }
  })());
});
