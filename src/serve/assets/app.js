// The explorer page: asks /api/position about the position the URL names, draws it
// and its moves, and plays the moves clicked. The URL (variant, fen, moves, ply) is
// the whole state, so back, forward, reload and shared links all land on the same
// position.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const FILES = 'abcdefg';
const POINTS = ['a7', 'd7', 'g7', 'b6', 'd6', 'f6', 'c5', 'd5', 'e5', 'a4', 'b4', 'c4', 'e4', 'f4', 'g4',
  'c3', 'd3', 'e3', 'b2', 'd2', 'f2', 'a1', 'd1', 'g1'];

const state = {
  variant: 'standard', fen: '', line: [], ply: 0,
  data: null, sel: null, seq: 0, error: '',
};

const $ = (id) => document.getElementById(id);
const xy = (p) => [FILES.indexOf(p[0]), 7 - Number(p[1])];

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function drawGrid() {
  const g = $('lines');
  for (const d of [0, 1, 2]) el('rect', { x: d, y: d, width: 6 - 2 * d, height: 6 - 2 * d }, g);
  for (const [a, b] of [['d7', 'd5'], ['d3', 'd1'], ['a4', 'c4'], ['e4', 'g4']]) {
    const [x1, y1] = xy(a); const [x2, y2] = xy(b);
    el('line', { x1, y1, x2, y2 }, g);
  }
  const hits = $('hits');
  for (const p of POINTS) {
    const [cx, cy] = xy(p);
    el('circle', { class: 'dot', cx, cy, r: 0.1 }, g);
    const h = el('circle', { class: 'hit', cx, cy, r: 0.45, 'data-point': p, id: 'pt-' + p }, hits);
    h.addEventListener('click', () => clickPoint(p));
  }
}

// ---- the URL is the state ----

function readUrl() {
  const q = new URLSearchParams(location.search);
  state.variant = q.get('variant') === 'no-flying' ? 'no-flying' : 'standard';
  state.fen = q.get('fen') || '';
  state.line = (q.get('moves') || '').split(/[\s,]+/).filter((t) => t);
  const ply = q.has('ply') ? Number(q.get('ply')) : state.line.length;
  state.ply = Number.isInteger(ply) ? Math.max(0, Math.min(ply, state.line.length)) : state.line.length;
  $('variant').value = state.variant;
}

function urlOf() {
  const q = new URLSearchParams();
  if (state.variant !== 'standard') q.set('variant', state.variant);
  if (state.fen) q.set('fen', state.fen);
  if (state.line.length) q.set('moves', state.line.join(' '));
  if (state.ply !== state.line.length) q.set('ply', String(state.ply));
  const s = q.toString();
  return location.pathname + (s ? '?' + s : '');
}

function go(push) {
  const url = urlOf();
  if (url !== location.pathname + location.search) {
    if (push) history.pushState(null, '', url); else history.replaceState(null, '', url);
  }
  load();
}

// ---- talking to the API ----

async function load() {
  const seq = ++state.seq;
  state.sel = null;
  document.body.dataset.state = 'loading';
  const q = new URLSearchParams({ variant: state.variant, moves: state.line.slice(0, state.ply).join(' ') });
  if (state.fen) q.set('fen', state.fen);
  let data; let error = '';
  try {
    const r = await fetch('/api/position?' + q.toString());
    const body = await r.json();
    if (r.ok) data = body; else error = body.error || ('error ' + r.status);
  } catch (e) {
    error = 'cannot reach the server: ' + e.message;
  }
  if (seq !== state.seq) return;
  state.error = error;
  if (data) {
    // Keep the line in the server's canonical notation (a pasted "d6 xg7" becomes d6xg7).
    state.line = data.played.concat(state.line.slice(state.ply));
    state.ply = data.played.length;
    state.data = data;
    const url = urlOf();
    if (url !== location.pathname + location.search) history.replaceState(null, '', url);
  }
  render();
  document.body.dataset.state = error ? 'error' : 'ready';
}

// ---- what a move is worth to the player who makes it ----

function cls(result) { return result.wdl || 'unknown'; }

function resultText(r) {
  if (r.wdl === 'win') return r.dtm != null ? `wins in ${r.dtm}` : 'wins';
  if (r.wdl === 'loss') return r.dtm != null ? `loses in ${r.dtm}` : 'loses';
  if (r.wdl === 'draw') return 'draw';
  return `estimate ${r.score > 0 ? '+' : ''}${r.score}`;
}

function valueText(v) {
  const how = ` (${v.obtained})`;
  if (v.wdl === 'win') return (v.dtm != null ? `win in ${v.dtm}` : 'win') + how;
  if (v.wdl === 'loss') return (v.dtm != null ? `loss in ${v.dtm}` : 'loss') + how;
  if (v.wdl === 'draw') return 'draw' + how;
  return `estimate ${v.score > 0 ? '+' : ''}${v.score}` + how;
}

// ---- drawing ----

function render() {
  const d = state.data;
  $('error').textContent = state.error;
  drawPieces(d);
  drawMarks(d);
  if (!d) return;
  const side = d.side_to_move;
  const v = $('value');
  if (d.game_over) {
    $('tomove').textContent = 'Game over:';
    v.textContent = d.game_over.message;
  } else {
    $('tomove').textContent = side[0].toUpperCase() + side.slice(1) + ' to move:';
    v.textContent = valueText(d.value);
  }
  v.className = d.value.wdl || 'unknown';
  v.dataset.wdl = d.value.wdl || '';
  v.dataset.dtm = d.value.dtm == null ? '' : String(d.value.dtm);
  $('hands').textContent = '';
  for (const c of ['white', 'black']) {
    const s = document.createElement('span');
    s.id = 'hand-' + c;
    s.textContent = `${c[0].toUpperCase() + c.slice(1)}: ${d[c].board.length} on board, ${d[c].hand} in hand (${d[c].phase})`;
    $('hands').appendChild(s);
  }
  const list = $('movelist');
  list.textContent = '';
  const best = d.moves.length ? JSON.stringify(d.moves[0].result) : '';
  for (const m of d.moves) {
    const li = document.createElement('li');
    li.className = cls(m.result) + (JSON.stringify(m.result) === best ? ' best' : '');
    li.dataset.move = m.move;
    li.dataset.wdl = m.result.wdl || '';
    li.dataset.dtm = m.result.dtm == null ? '' : String(m.result.dtm);
    li.innerHTML = '<span class="mv"></span><span class="res"></span>';
    li.firstChild.textContent = m.move;
    li.lastChild.textContent = resultText(m.result) + (m.result.exact || m.result.wdl == null ? '' : ' (at most)');
    li.addEventListener('click', () => play(m.move));
    li.addEventListener('mouseenter', () => drawMarks(d, [m]));
    li.addEventListener('mouseleave', () => drawMarks(d));
    list.appendChild(li);
  }
  const line = $('line');
  line.textContent = '';
  const start = document.createElement('span');
  start.textContent = 'start';
  start.dataset.ply = '0';
  if (state.ply === 0) start.className = 'current';
  start.addEventListener('click', () => { state.ply = 0; go(true); });
  line.appendChild(start);
  state.line.forEach((mv, i) => {
    const s = document.createElement('span');
    s.textContent = mv;
    s.dataset.ply = String(i + 1);
    s.className = i + 1 === state.ply ? 'current' : (i + 1 > state.ply ? 'after' : '');
    s.addEventListener('click', () => { state.ply = i + 1; go(true); });
    line.append(' ', s);
  });
  $('posstr').textContent = d.position;
  $('sanmill').textContent = d.sanmill;
  $('back').disabled = $('first').disabled = state.ply === 0;
  $('forward').disabled = $('last').disabled = state.ply >= state.line.length;
  $('prompt').textContent = prompt(d);
}

function drawPieces(d) {
  const g = $('pieces');
  g.textContent = '';
  if (!d) return;
  for (const c of ['white', 'black']) {
    for (const p of d[c].board) {
      const [cx, cy] = xy(p);
      const sel = state.sel && state.sel.from === p;
      el('circle', { class: `piece ${c}${sel ? ' selected' : ''}`, cx, cy, r: 0.3, id: 'piece-' + p, 'data-color': c }, g);
    }
  }
}

// The moves drawn: all of them, those of the selected piece, or the captures open
// after the chosen placement or move.
function drawMarks(d, only) {
  const g = $('marks');
  g.textContent = '';
  if (!d) return;
  const sel = state.sel;
  if (sel && sel.to) {
    for (const m of movesOf(d, sel.from, sel.to)) {
      const [cx, cy] = xy(m.capture);
      el('circle', { class: `ring ${cls(m.result)}`, cx, cy, r: 0.4, 'data-capture': m.capture }, g);
    }
    const [cx, cy] = xy(sel.to);
    el('circle', { class: 'target unknown', cx, cy, r: 0.18 }, g);
    return;
  }
  const shown = only || d.moves.filter((m) => !sel || m.from === sel.from);
  // One mark a destination (or a piece's path): the best move's colour, moves being best first.
  const seen = new Set();
  for (const m of shown) {
    const key = (m.from || '') + m.to;
    if (seen.has(key)) continue;
    seen.add(key);
    const c = cls(m.result);
    const [x2, y2] = xy(m.to);
    if (m.from && !sel) {
      const [x1, y1] = xy(m.from);
      const len = Math.hypot(x2 - x1, y2 - y1);
      const k = (len - 0.3) / len;
      el('line', { class: `arrow ${c}`, x1, y1, x2: x1 + (x2 - x1) * k, y2: y1 + (y2 - y1) * k, 'marker-end': `url(#arrow-${c})`, 'data-move': m.move }, g);
    } else {
      el('circle', { class: `target ${c}`, cx: x2, cy: y2, r: sel ? 0.2 : 0.14, 'data-move': m.move }, g);
    }
    if (m.capture && only) {
      const [cx, cy] = xy(m.capture);
      el('circle', { class: `ring ${c}`, cx, cy, r: 0.4 }, g);
    }
  }
}

function prompt(d) {
  if (d.game_over || !d.moves.length) return '';
  const sel = state.sel;
  if (sel && sel.to) return 'Choose the piece to take (ringed).';
  if (sel) return `Click where ${sel.from} goes (or another piece).`;
  return d.moves[0].from ? 'Click a piece to move, or a move in the list.' : 'Click a point to place a piece, or a move in the list.';
}

// ---- clicking ----

function movesOf(d, from, to) {
  return d.moves.filter((m) => (m.from || null) === (from || null) && m.to === to);
}

function clickPoint(p) {
  const d = state.data;
  if (!d || d.game_over || document.body.dataset.state === 'loading') return;
  const sel = state.sel;
  if (sel && sel.to) {
    const m = movesOf(d, sel.from, sel.to).find((x) => x.capture === p);
    if (m) return play(m.move);
    state.sel = null;
  } else if (sel && movesOf(d, sel.from, p).length) {
    return choose(d, sel.from, p);
  } else if (d.moves.some((m) => m.from === p)) {
    state.sel = sel && sel.from === p ? null : { from: p };
  } else if (!d.moves.some((m) => m.from) && movesOf(d, null, p).length) {
    return choose(d, null, p);
  } else {
    state.sel = null;
  }
  drawPieces(d);
  drawMarks(d);
  $('prompt').textContent = prompt(d);
}

// A destination chosen: play the move, or first ask which piece to take.
function choose(d, from, to) {
  const moves = movesOf(d, from, to);
  if (moves.length === 1 && !moves[0].capture) return play(moves[0].move);
  state.sel = { from, to };
  drawPieces(d);
  drawMarks(d);
  $('prompt').textContent = prompt(d);
}

function play(mv) {
  if (state.line[state.ply] !== mv) state.line = state.line.slice(0, state.ply).concat([mv]);
  state.ply += 1;
  go(true);
}

function step(to) {
  const ply = Math.max(0, Math.min(to, state.line.length));
  if (ply === state.ply) return;
  state.ply = ply;
  go(true);
}

// ---- wiring ----

drawGrid();
$('first').addEventListener('click', () => step(0));
$('back').addEventListener('click', () => step(state.ply - 1));
$('forward').addEventListener('click', () => step(state.ply + 1));
$('last').addEventListener('click', () => step(state.line.length));
document.addEventListener('keydown', (e) => {
  if (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT') return;
  if (e.key === 'ArrowLeft') step(state.ply - 1);
  if (e.key === 'ArrowRight') step(state.ply + 1);
  if (e.key === 'Escape' && state.sel) { state.sel = null; render(); }
});
$('variant').addEventListener('change', () => { state.variant = $('variant').value; go(true); });
$('load').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = $('paste').value.trim();
  if (text.includes('/')) {
    state.fen = text; state.line = []; state.ply = 0;
  } else {
    state.fen = ''; state.line = text.split(/[\s,]+/).filter((t) => t); state.ply = state.line.length;
  }
  go(true);
});
window.addEventListener('popstate', () => { readUrl(); load(); });
readUrl();
load();
