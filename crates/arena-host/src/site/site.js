// The contest pages' one script: live updates without losing what the reader opened.
//
// The server says on /events (server-sent events) when the contest changed. The page is then
// fetched again and each element marked data-live (with an id) is replaced by its new copy, unless
// it is unchanged. What the reader opened stays open (<details> with an id), and a live part holding
// the element being typed in is left alone until the reader leaves it.
(function () {
  'use strict';
  if (!window.EventSource || !document.querySelector('[data-live][id]')) return;
  let last = null;
  let busy = false;
  let again = false;

  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const answer = await fetch(location.href, { credentials: 'same-origin', headers: { 'X-Arena-Live': '1' } });
      if (!answer.ok) return;
      const fresh = new DOMParser().parseFromString(await answer.text(), 'text/html');
      for (const old of document.querySelectorAll('[data-live][id]')) {
        const next = fresh.getElementById(old.id);
        if (!next || next.innerHTML === old.innerHTML) continue;
        if (old.contains(document.activeElement) && document.activeElement !== document.body) continue;
        const open = new Set();
        for (const d of old.querySelectorAll('details[id]')) if (d.open) open.add(d.id);
        const closed = new Set();
        for (const d of old.querySelectorAll('details[id]')) if (!d.open) closed.add(d.id);
        for (const d of next.querySelectorAll('details[id]')) {
          if (open.has(d.id)) d.open = true;
          if (closed.has(d.id)) d.open = false;
        }
        old.replaceWith(document.adoptNode(next));
      }
      document.documentElement.dataset.liveUpdates = String(Number(document.documentElement.dataset.liveUpdates || 0) + 1);
    } catch (e) {
      // The next change tries again.
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }

  // The first event refreshes too: what changed between the page's rendering and the stream's
  // start would otherwise wait for the next change.
  const events = new EventSource('/events');
  events.addEventListener('change', function (event) {
    if (event.data !== last) refresh();
    last = event.data;
  });
})();
