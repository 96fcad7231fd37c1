// rsxtrace report: the index's filter and keyboard navigation, and previous/next on draw
// pages. No network, no framework; runs from file:// as well as from a web server.
(function () {
  'use strict';

  function isTyping(target) {
    return target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA');
  }

  // Draw pages: j / right arrow = next draw, k / left arrow = previous, u = index.
  function drawPage() {
    const go = function (rel) {
      const link = document.querySelector('a[rel="' + rel + '"]');
      if (link) { window.location.href = link.href; }
    };
    document.addEventListener('keydown', function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) { return; }
      if (e.key === 'j' || e.key === 'ArrowRight') { go('next'); }
      else if (e.key === 'k' || e.key === 'ArrowLeft') { go('prev'); }
      else if (e.key === 'u') { go('index'); }
    });
  }

  // The index: a filter over the event rows (every word must appear in the row's text) and a
  // selected row moved with j/k or the arrows, opened with Enter.
  function indexPage() {
    const filter = document.getElementById('filter');
    const shown = document.getElementById('shown');
    const rows = Array.prototype.slice.call(document.querySelectorAll('#events tbody tr'));
    const texts = rows.map(function (r) { return r.textContent.toLowerCase(); });
    let selected = null;

    function visibleRows() { return rows.filter(function (r) { return !r.hidden; }); }

    function select(row) {
      if (selected) { selected.classList.remove('selected'); }
      selected = row;
      if (row) {
        row.classList.add('selected');
        row.scrollIntoView({ block: 'nearest' });
      }
    }

    function applyFilter() {
      const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      let count = 0;
      rows.forEach(function (r, i) {
        const hit = words.every(function (w) { return texts[i].indexOf(w) >= 0; });
        r.hidden = !hit;
        if (hit) { count += 1; }
      });
      if (shown) { shown.textContent = count + ' of ' + rows.length + ' events'; }
      if (selected && selected.hidden) { select(null); }
    }

    function move(step) {
      const visible = visibleRows();
      if (visible.length === 0) { return; }
      let at = selected ? visible.indexOf(selected) : -1;
      at = at < 0 ? (step > 0 ? 0 : visible.length - 1)
                  : Math.min(visible.length - 1, Math.max(0, at + step));
      select(visible[at]);
    }

    function open() {
      const row = selected || visibleRows()[0];
      const link = row && row.querySelector('a[href]');
      if (link) { window.location.href = link.href; }
    }

    if (filter) {
      filter.addEventListener('input', applyFilter);
      filter.addEventListener('keydown', function (e) {
        if (e.key === 'Escape') { filter.blur(); }
        else if (e.key === 'Enter') { e.preventDefault(); open(); }
        else if (e.key === 'ArrowDown') { e.preventDefault(); filter.blur(); move(1); }
      });
    }
    rows.forEach(function (r) {
      r.addEventListener('click', function () { select(r); });
    });
    document.addEventListener('keydown', function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) { return; }
      if (e.key === 'j' || e.key === 'ArrowDown') { e.preventDefault(); move(1); }
      else if (e.key === 'k' || e.key === 'ArrowUp') { e.preventDefault(); move(-1); }
      else if (e.key === 'Enter' || e.key === 'o') { open(); }
      else if (e.key === '/') { e.preventDefault(); if (filter) { filter.focus(); } }
    });
  }

  if (document.body.classList.contains('index')) { indexPage(); }
  else if (document.body.classList.contains('draw')) { drawPage(); }
})();
