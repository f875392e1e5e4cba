// The explorer page: asks /api/position about the position the URL names, draws it
// and its moves, and plays the moves clicked. Four modes share the board:
//
// - explore: every move with its value; back and forward walk the line played;
// - play: a game against the engine, which answers on its turn by the API's best
//   move (ultra) or a random move among the equal best (perfect); values hidden
//   unless asked for;
// - review: the line judged ply by ply by /api/review;
// - train: a puzzle of /api/puzzle; the move tried is checked against the tables.
//
// The URL is the state (mode, variant, strategy, position and line; in play the
// colour and whether values show; in train the puzzle's sector, goal and seed), so
// back, forward, reload and shared links all land in the same place.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const FILES = 'abcdefg';
const POINTS = ['a7', 'd7', 'g7', 'b6', 'd6', 'f6', 'c5', 'd5', 'e5', 'a4', 'b4', 'c4', 'e4', 'f4', 'g4',
  'c3', 'd3', 'e3', 'b2', 'd2', 'f2', 'a1', 'd1', 'g1'];
const MODES = ['explore', 'play', 'review', 'train'];
// How long the engine's move waits before it is played, so that it can be seen.
const ENGINE_PAUSE_MS = 250;

const state = {
  mode: 'explore', variant: 'standard', rules: '', strategy: 'ultra', fen: '', line: [], ply: 0,
  data: null, sel: null, seq: 0, error: '',
  // play
  color: 'white', showValues: false,
  // review: the document and the query it answers
  review: null, reviewKey: '',
  // train: what is asked, the puzzle found, the move tried and whether the solution shows
  sector: '', goal: 'any', seed: '', puzzle: null, puzzleKey: '', attempt: null, revealed: false,
  sectors: {},
};

const $ = (id) => document.getElementById(id);
const xy = (p) => [FILES.indexOf(p[0]), 7 - Number(p[1])];
const other = (c) => (c === 'white' ? 'black' : 'white');
const title = (s) => s[0].toUpperCase() + s.slice(1);

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// The board a rule spec plays on: its preset's (six-mens, twelve-mens, else nine),
// or the one its board= switch names.
function boardOf(spec) {
  const tokens = spec.split(',').map((t) => t.trim().toLowerCase());
  let board = { 'six-mens': 'six', 'twelve-mens': 'twelve' }[tokens[0]] || 'nine';
  for (const t of tokens.slice(1)) {
    const m = /^board\s*=\s*(nine|six|twelve)$/.exec(t);
    if (m) board = m[1];
  }
  return board;
}

// The points of a board: the six board has no middle square.
const MIDDLE = ['b6', 'd6', 'f6', 'f4', 'f2', 'd2', 'b2', 'b4'];
const pointsOf = (board) => (board === 'six' ? POINTS.filter((p) => !MIDDLE.includes(p)) : POINTS);

// The squares, the joins of their midpoints and, on the twelve board, the diagonals.
function drawGrid(board) {
  const g = $('lines');
  const hits = $('hits');
  g.replaceChildren();
  hits.replaceChildren();
  g.dataset.board = board;
  for (const d of board === 'six' ? [0, 2] : [0, 1, 2]) {
    el('rect', { x: d, y: d, width: 6 - 2 * d, height: 6 - 2 * d }, g);
  }
  const joins = [['d7', 'd5'], ['d3', 'd1'], ['a4', 'c4'], ['e4', 'g4']];
  if (board === 'twelve') joins.push(['a7', 'c5'], ['g7', 'e5'], ['g1', 'e3'], ['a1', 'c3']);
  for (const [a, b] of joins) {
    const [x1, y1] = xy(a); const [x2, y2] = xy(b);
    el('line', { x1, y1, x2, y2 }, g);
  }
  for (const p of pointsOf(board)) {
    const [cx, cy] = xy(p);
    el('circle', { class: 'dot', cx, cy, r: 0.1 }, g);
    const h = el('circle', { class: 'hit', cx, cy, r: 0.45, 'data-point': p, id: 'pt-' + p }, hits);
    h.addEventListener('click', () => clickPoint(p));
  }
}

// ---- the URL is the state ----

function readUrl() {
  const q = new URLSearchParams(location.search);
  state.mode = MODES.includes(q.get('mode')) ? q.get('mode') : 'explore';
  state.variant = q.get('variant') === 'no-flying' ? 'no-flying' : 'standard';
  state.rules = (q.get('rules') || '').trim().slice(0, 200);
  state.strategy = ['perfect', 'classes'].includes(q.get('strategy')) ? q.get('strategy') : 'ultra';
  state.fen = q.get('fen') || '';
  state.line = (q.get('moves') || '').split(/[\s,]+/).filter((t) => t);
  const ply = q.has('ply') ? Number(q.get('ply')) : state.line.length;
  state.ply = Number.isInteger(ply) ? Math.max(0, Math.min(ply, state.line.length)) : state.line.length;
  state.color = q.get('color') === 'black' ? 'black' : 'white';
  state.showValues = q.get('values') === '1';
  state.sector = q.get('sector') || '';
  state.goal = ['win', 'draw'].includes(q.get('goal')) ? q.get('goal') : 'any';
  state.seed = /^\d{1,15}$/.test(q.get('seed') || '') ? q.get('seed') : '';
  if (state.mode === 'play') state.line = state.line.slice(0, state.ply);
  if (state.mode === 'train' && !state.seed) state.seed = newSeed();
  syncControls();
}

function urlOf() {
  const q = new URLSearchParams();
  if (state.mode !== 'explore') q.set('mode', state.mode);
  if (state.variant !== 'standard') q.set('variant', state.variant);
  if (houseRules()) q.set('rules', houseRules());
  if (state.mode === 'train') {
    if (state.sector) q.set('sector', state.sector);
    if (state.goal !== 'any') q.set('goal', state.goal);
    q.set('seed', state.seed);
  } else {
    if (state.strategy !== 'ultra') q.set('strategy', state.strategy);
    if (state.mode === 'play') {
      q.set('color', state.color);
      if (state.showValues) q.set('values', '1');
    }
    if (state.fen) q.set('fen', state.fen);
    if (state.line.length) q.set('moves', state.line.join(' '));
    if (state.ply !== state.line.length) q.set('ply', String(state.ply));
  }
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

// The house rules in force: those given, except in training (puzzles are drawn from
// the two classic games only).
const houseRules = () => (state.mode === 'train' ? '' : state.rules);

// The rules a request names: the house rules in force, else the variant.
function rulesQuery() {
  return houseRules() ? { rules: houseRules() } : { variant: state.variant };
}

function syncControls() {
  $('variant').value = state.variant;
  $('rules').value = state.rules;
  $('variant').disabled = Boolean(houseRules());
  const board = houseRules() ? boardOf(houseRules()) : 'nine';
  if ($('lines').dataset.board !== board) drawGrid(board);
  $('strategy').value = state.strategy;
  $('color').value = state.color;
  $('showvalues').checked = state.showValues;
  $('goal').value = state.goal;
  document.body.dataset.mode = state.mode;
  for (const b of document.querySelectorAll('#modes button')) {
    b.setAttribute('aria-pressed', String(b.dataset.mode === state.mode));
  }
}

function newSeed() { return String(1 + Math.floor(Math.random() * 1e9)); }

// ---- talking to the API ----

async function ask(path, params, post) {
  try {
    const r = post
      ? await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(params) })
      : await fetch(path + '?' + new URLSearchParams(params).toString());
    const body = await r.json();
    return r.ok ? { data: body } : { error: body.error || ('error ' + r.status) };
  } catch (e) {
    return { error: 'cannot reach the server: ' + e.message };
  }
}

async function load() {
  const seq = ++state.seq;
  state.sel = null;
  document.body.dataset.state = 'loading';
  let error = '';
  if (state.mode === 'train') error = await loadPuzzle(seq);
  if (seq !== state.seq) return;
  let data = null;
  if (!error) {
    const q = { ...rulesQuery(), moves: state.line.slice(0, state.ply).join(' ') };
    if (state.fen) q.fen = state.fen;
    if (state.strategy !== 'ultra' && state.mode !== 'train') q.strategy = state.strategy;
    const a = await ask('/api/position', q);
    data = a.data; error = a.error || '';
  }
  if (seq !== state.seq) return;
  if (data) {
    // Keep the line in the server's canonical notation (a pasted "d6 xg7" becomes d6xg7).
    state.line = data.played.concat(state.line.slice(state.ply));
    state.ply = data.played.length;
    const url = urlOf();
    if (url !== location.pathname + location.search) history.replaceState(null, '', url);
  }
  state.data = data;
  if (state.mode === 'review' && data && !error) {
    error = await loadReview();
    if (seq !== state.seq) return;
  }
  state.error = error;
  render();
  if (!error && engineToMove()) {
    engineMove(seq);
    return;
  }
  document.body.dataset.state = error ? 'error' : 'ready';
}

async function loadReview() {
  const q = { ...rulesQuery(), moves: state.line.join(' '), strategy: state.strategy };
  if (state.fen) q.fen = state.fen;
  const key = JSON.stringify(q);
  if (key === state.reviewKey && state.review) return '';
  const a = await ask('/api/review', q, true);
  state.review = a.data || null;
  state.reviewKey = a.data ? key : '';
  return a.error ? 'review: ' + a.error : '';
}

// The puzzle the URL asks for, fetched once; its position becomes the one shown.
async function loadPuzzle(seq) {
  await loadSectors();
  const q = { variant: state.variant, goal: state.goal, seed: state.seed };
  if (state.sector) q.sector = state.sector;
  const key = JSON.stringify(q);
  if (key === state.puzzleKey && state.puzzle) {
    // The same puzzle (the URL names no position in this mode): its position, and the
    // move tried, if any.
    state.fen = state.puzzle.position;
    state.line = state.attempt ? [state.attempt.move] : [];
    state.ply = state.line.length;
    return '';
  }
  const a = await ask('/api/puzzle', q);
  if (seq !== state.seq) return '';
  state.puzzle = a.data || null;
  state.puzzleKey = a.data ? key : '';
  state.attempt = null;
  state.revealed = false;
  if (!a.data) return a.error;
  state.fen = a.data.position;
  state.line = [];
  state.ply = 0;
  return '';
}

// The sectors puzzles are drawn from, once a variant.
async function loadSectors() {
  if (!state.sectors[state.variant]) {
    const a = await ask('/api/puzzle/sectors', { variant: state.variant });
    if (a.data) state.sectors[state.variant] = a.data.sectors;
  }
  const list = state.sectors[state.variant] || [];
  const select = $('sector');
  select.textContent = '';
  const any = document.createElement('option');
  any.value = '';
  any.textContent = 'any';
  select.appendChild(any);
  for (const s of list.concat(state.sector && !list.includes(state.sector) ? [state.sector] : [])) {
    const o = document.createElement('option');
    o.value = s;
    o.textContent = s;
    select.appendChild(o);
  }
  select.value = state.sector;
}

// ---- the engine (play) ----

function engineToMove() {
  const d = state.data;
  return state.mode === 'play' && d && !d.game_over && d.moves.length > 0
    && d.side_to_move !== state.color && state.ply === state.line.length;
}

// The engine's choice: under ultra or classes the first move of the answer's line (the
// tables' choice under that strategy, after the game's positions), else its first
// move; under perfect a uniformly random one among those whose result is the first's
// (the same value and distance), the first where the answer is only an estimate.
function engineChoice(d) {
  const first = d.moves[0];
  if (state.strategy !== 'perfect') return (d.line && d.line.length) ? d.line[0] : first.move;
  if (!first.result.exact || first.result.wdl == null) return first.move;
  const same = d.moves.filter((m) => m.result.exact && m.result.wdl === first.result.wdl
    && m.result.dtm === first.result.dtm);
  return same[Math.floor(Math.random() * same.length)].move;
}

function engineMove(seq) {
  const mv = engineChoice(state.data);
  $('playstate').textContent = 'The engine is thinking...';
  setTimeout(() => {
    if (seq !== state.seq) return;
    state.line = state.line.slice(0, state.ply).concat([mv]);
    state.ply += 1;
    // One history entry a turn of the player: the engine's move replaces the entry
    // of the move it answers, so back lands on the player's previous turn.
    go(false);
  }, ENGINE_PAUSE_MS);
}

// The side to move after `ply` plies of the line, from the position shown.
function sideAt(ply) {
  const d = state.data;
  return (state.ply - ply) % 2 === 0 ? d.side_to_move : other(d.side_to_move);
}

// The last ply before the current one at which the player was to move.
function lastTurn() {
  if (!state.data) return null;
  for (let p = state.ply - 1; p >= 0; p--) if (sideAt(p) === state.color) return p;
  return null;
}

// ---- what a move is worth to the player who makes it ----

function cls(result) { return result.wdl || 'unknown'; }

// "4-3" seen from the other side: "3-4".
function swapped(sector) { return sector.split('-').reverse().join('-'); }

// As the command line writes classes and scores: +0, +12, -3.
function signed(n) { return (n >= 0 ? '+' : '') + n; }

function resultText(m) {
  const r = m.result;
  if (r.wdl === 'win') return r.dtm != null ? `wins in ${r.dtm}` : 'wins';
  if (r.wdl === 'loss') return r.dtm != null ? `loses in ${r.dtm}` : 'loses';
  if (r.wdl === 'draw') {
    if (r.class == null) return 'draw';
    const settles = m.value.class && m.value.class.settles;
    return `draw, class ${signed(r.class)}` + (settles ? `, settles in ${swapped(settles)}` : '');
  }
  return `estimate ${signed(r.score)}`;
}

function valueText(v) {
  const how = ` (${v.obtained})`;
  if (v.wdl === 'win') return (v.dtm != null ? `win in ${v.dtm}` : 'win') + how;
  if (v.wdl === 'loss') return (v.dtm != null ? `loss in ${v.dtm}` : 'loss') + how;
  if (v.wdl === 'draw') {
    const c = v.class;
    const klass = c ? `, class ${signed(c.class)}` + (c.settles ? `, settles in ${c.settles}` : '') : '';
    return 'draw' + klass + how;
  }
  return `estimate ${signed(v.score)}` + how;
}

function outcomeText(o) {
  if (o.wdl === 'win') return o.dtm != null ? `win in ${o.dtm}` : 'win';
  if (o.wdl === 'loss') return o.dtm != null ? `loss in ${o.dtm}` : 'loss';
  return o.class != null ? `draw (class ${signed(o.class)})` : 'draw';
}

// Whether values show: always but in play (unless asked for) and in a puzzle not
// yet tried.
function valuesShown() {
  if (state.mode === 'play') return state.showValues;
  if (state.mode === 'train') return state.attempt != null || state.revealed;
  return true;
}

// ---- drawing ----

function render() {
  const d = state.data;
  syncControls();
  document.body.classList.toggle('hide-values', !valuesShown());
  $('error').textContent = state.error;
  drawPieces(d);
  drawMarks(d);
  renderPlay(d);
  renderTrain(d);
  renderReview();
  if (!d) return;
  const side = d.side_to_move;
  const v = $('value');
  if (d.game_over) {
    $('tomove').textContent = 'Game over:';
    v.textContent = d.game_over.message;
  } else {
    $('tomove').textContent = title(side) + ' to move' + (valuesShown() ? ':' : '');
    v.textContent = valueText(d.value);
  }
  // A game's end is no secret.
  v.style.display = d.game_over ? 'inline' : '';
  v.className = d.value.wdl || 'unknown';
  v.dataset.wdl = d.value.wdl || '';
  v.dataset.dtm = d.value.dtm == null ? '' : String(d.value.dtm);
  $('hands').textContent = '';
  for (const c of ['white', 'black']) {
    const s = document.createElement('span');
    s.id = 'hand-' + c;
    s.textContent = `${title(c)}: ${d[c].board.length} on board, ${d[c].hand} in hand (${d[c].phase})`;
    $('hands').appendChild(s);
  }
  const list = $('movelist');
  list.textContent = '';
  // The document's best moves, as the strategy counts them.
  const best = new Set(d.best || []);
  for (const m of d.moves) {
    const li = document.createElement('li');
    li.className = cls(m.result) + (best.has(m.move) ? ' best' : '');
    li.dataset.move = m.move;
    li.dataset.wdl = m.result.wdl || '';
    li.dataset.dtm = m.result.dtm == null ? '' : String(m.result.dtm);
    li.dataset.class = m.result.class == null ? '' : String(m.result.class);
    li.innerHTML = '<span class="mv"></span><span class="res"></span>';
    li.firstChild.textContent = m.move;
    li.lastChild.textContent = resultText(m) + (m.result.exact || m.result.wdl == null ? '' : ' (at most)');
    li.addEventListener('click', () => { if (mayMove(d)) play(m.move); });
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
  start.addEventListener('click', () => step(0));
  line.appendChild(start);
  state.line.forEach((mv, i) => {
    const s = document.createElement('span');
    s.textContent = mv;
    s.dataset.ply = String(i + 1);
    s.className = i + 1 === state.ply ? 'current' : (i + 1 > state.ply ? 'after' : '');
    s.addEventListener('click', () => step(i + 1));
    line.append(' ', s);
  });
  $('posstr').textContent = d.position;
  $('sanmill').textContent = d.sanmill;
  $('back').disabled = $('first').disabled = state.ply === 0;
  $('forward').disabled = $('last').disabled = state.ply >= state.line.length;
  $('prompt').textContent = prompt(d);
}

function renderPlay(d) {
  if (state.mode !== 'play') return;
  const ps = $('playstate');
  $('undo').disabled = !d || lastTurn() == null;
  if (!d) { ps.textContent = ''; return; }
  let text;
  if (d.game_over) {
    const w = d.game_over.winner;
    text = w == null ? 'Game over: a draw.' : (w === state.color ? 'Game over: you win.' : 'Game over: the engine wins.');
  } else if (d.side_to_move === state.color) {
    text = `Your move (${state.color}).`;
  } else if (state.ply < state.line.length) {
    text = 'The engine is to move: forward, or take back.';
  } else {
    text = 'The engine is thinking...';
  }
  ps.textContent = text;
  ps.dataset.over = d.game_over ? (d.game_over.winner || 'draw') : '';
}

function renderTrain(d) {
  if (state.mode !== 'train') return;
  const p = state.puzzle;
  const a = state.attempt;
  $('task').textContent = p
    ? `${title(p.side_to_move)} to move and ${p.goal === 'win' ? `win in ${p.dtm}` : 'hold the draw'}`
      + ` (endgame ${p.sector}; one of ${p.legal_moves} moves)`
    : '';
  const verdict = $('verdict');
  verdict.className = a ? (a.correct ? 'correct' : 'wrong') : '';
  verdict.dataset.verdict = a ? (a.correct ? 'correct' : 'wrong') : '';
  if (!p || !a) {
    verdict.textContent = p && !state.revealed ? 'Find the move: click it on the board.' : '';
  } else if (a.correct) {
    verdict.textContent = `Correct: ${a.move} ${p.goal === 'win' ? 'keeps the win' : 'holds the draw'}.`;
  } else {
    verdict.textContent = `Wrong: ${a.move} ${a.outcome}; it had to ${p.goal === 'win' ? 'keep the win' : 'hold the draw'}.`;
  }
  const sol = $('solution');
  sol.textContent = p && (a || state.revealed) ? `Solution: ${p.solution}. Line: ${p.line.join(' ')}` : '';
  $('retry').hidden = !(a && !a.correct);
  $('reveal').hidden = !p || a != null || state.revealed;
  $('playon').hidden = !p || !d || d.game_over != null || (!a && !state.revealed);
}

function renderReview() {
  if (state.mode !== 'review') return;
  const r = state.review;
  const list = $('review');
  list.textContent = '';
  $('summary').textContent = '';
  if (!r) return;
  if (!r.plies.length) {
    $('summary').textContent = 'Nothing to review yet: play some moves (in Explore or Play), then come back.';
    return;
  }
  for (const c of ['white', 'black']) {
    const s = r[c];
    const div = document.createElement('div');
    div.id = 'summary-' + c;
    div.textContent = `${title(c)}: ${s.judged} judged (${s.not_judged} not), ${s.best} best, `
      + `${s.inaccuracies} inaccuracies, ${s.blunders} blunders; only moves ${s.only_moves_found} of ${s.only_moves} found`;
    $('summary').appendChild(div);
  }
  for (const p of r.plies) {
    const li = document.createElement('li');
    li.className = (p.mark || 'unjudged') + (p.ply === state.ply + 1 ? ' current' : '');
    li.dataset.ply = String(p.ply);
    li.dataset.mark = p.mark || '';
    li.dataset.only = String(p.only_move);
    const add = (klass, text) => {
      const s = document.createElement('span');
      s.className = klass;
      s.textContent = text;
      li.appendChild(s);
      return s;
    };
    add('no', p.ply + '.');
    const mv = add('mv', '');
    const dot = document.createElement('span');
    dot.className = 'side ' + p.side;
    dot.title = p.side;
    mv.append(dot, p.move);
    if (!p.judged) {
      add('mark', 'not judged: ' + p.reason);
    } else {
      const label = p.mark === 'blunder' ? 'BLUNDER' : p.mark;
      add('mark', label + (p.only_move ? ', only move' : ''));
      add('change', `${outcomeText(p.before)} -> ${outcomeText(p.after)}`);
      if (p.mark !== 'best' && p.best.length) add('alt', 'best: ' + p.best.slice(0, 3).join(' '));
    }
    li.addEventListener('click', () => step(p.ply - 1));
    list.appendChild(li);
  }
  const current = list.querySelector('li.current');
  if (current && current.scrollIntoView) current.scrollIntoView({ block: 'nearest' });
}

// The pieces; the one the last move brought, marked.
function drawPieces(d) {
  const g = $('pieces');
  g.textContent = '';
  $('lastmove').textContent = '';
  if (!d) return;
  const last = d.played.length ? d.played[d.played.length - 1].split('x')[0].split('-').pop() : null;
  for (const c of ['white', 'black']) {
    for (const p of d[c].board) {
      const [cx, cy] = xy(p);
      const sel = state.sel && state.sel.from === p;
      el('circle', { class: `piece ${c}${sel ? ' selected' : ''}`, cx, cy, r: 0.3, id: 'piece-' + p, 'data-color': c }, g);
      if (p === last) el('circle', { class: 'last', cx, cy, r: 0.1, 'data-point': p }, $('lastmove'));
    }
  }
}

// The moves drawn: all of them, those of the selected piece, or the captures open
// after the chosen placement or move; in one neutral colour where values are hidden,
// none while the engine is to move.
function drawMarks(d, only) {
  const g = $('marks');
  g.textContent = '';
  if (!d || (state.mode === 'play' && d.side_to_move !== state.color)) return;
  const colour = valuesShown() ? cls : () => 'plain';
  const sel = state.sel;
  if (sel && sel.to) {
    for (const m of movesOf(d, sel.from, sel.to)) {
      const [cx, cy] = xy(m.capture);
      el('circle', { class: `ring ${colour(m.result)}`, cx, cy, r: 0.4, 'data-capture': m.capture }, g);
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
    const c = colour(m.result);
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
  if (d.game_over || !d.moves.length || !mayMove(d)) return '';
  const sel = state.sel;
  if (sel && sel.to) return 'Choose the piece to take (ringed).';
  if (sel) return `Click where ${sel.from} goes (or another piece).`;
  const list = valuesShown() ? ', or a move in the list' : '';
  return d.moves[0].from ? `Click a piece to move${list}.` : `Click a point to place a piece${list}.`;
}

// ---- clicking ----

// Whether the board takes a move now: not the engine's turn, not a puzzle tried.
function mayMove(d) {
  if (state.mode === 'play') return d.side_to_move === state.color;
  if (state.mode === 'train') return state.puzzle != null && state.attempt == null && state.ply === 0;
  return true;
}

function movesOf(d, from, to) {
  return d.moves.filter((m) => (m.from || null) === (from || null) && m.to === to);
}

function clickPoint(p) {
  const d = state.data;
  if (!d || d.game_over || document.body.dataset.state === 'loading' || !mayMove(d)) return;
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
  if (state.mode === 'train') judgeAttempt(mv);
  if (state.line[state.ply] !== mv) state.line = state.line.slice(0, state.ply).concat([mv]);
  state.ply += 1;
  go(true);
}

// A puzzle's move, judged by the tables' answer for the puzzle's position: right when
// it keeps the value (for a win, a winning move; for a draw, a drawing move).
function judgeAttempt(mv) {
  const m = state.data.moves.find((x) => x.move === mv);
  const goal = state.puzzle.goal;
  const wdl = m && m.result.wdl;
  state.attempt = {
    move: mv,
    correct: wdl === goal,
    outcome: wdl === 'win' ? 'wins' : wdl === 'draw' ? 'only draws' : wdl === 'loss' ? 'loses' : 'is not known to the tables',
  };
}

function step(to) {
  if (state.mode === 'play' || state.mode === 'train') return;
  const ply = Math.max(0, Math.min(to, state.line.length));
  if (ply === state.ply) return;
  state.ply = ply;
  go(true);
}

function setMode(mode) {
  if (mode === state.mode) return;
  const from = state.mode;
  state.mode = mode;
  if (mode === 'play') {
    // Play on from the position shown, as its side to move.
    state.line = state.line.slice(0, state.ply);
    if (state.data && !state.data.game_over) state.color = state.data.side_to_move;
  }
  if (mode === 'train') {
    state.seed = newSeed();
    state.puzzleKey = '';
  }
  if (from === 'train') state.attempt = null;
  go(true);
}

// ---- wiring ----

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
for (const b of document.querySelectorAll('#modes button')) {
  b.addEventListener('click', () => setMode(b.dataset.mode));
}
$('variant').addEventListener('change', () => {
  state.variant = $('variant').value;
  if (state.mode === 'train') { state.sector = ''; state.seed = newSeed(); }
  go(true);
});
$('rules').addEventListener('change', () => {
  state.rules = $('rules').value.trim().slice(0, 200);
  state.fen = ''; state.line = []; state.ply = 0;
  go(true);
});
$('strategy').addEventListener('change', () => { state.strategy = $('strategy').value; go(true); });
$('color').addEventListener('change', () => { state.color = $('color').value; go(true); });
$('showvalues').addEventListener('change', () => { state.showValues = $('showvalues').checked; go(false); });
$('newgame').addEventListener('click', () => { state.line = []; state.ply = 0; go(true); });
$('undo').addEventListener('click', () => {
  const p = lastTurn();
  if (p == null) return;
  state.line = state.line.slice(0, p);
  state.ply = p;
  go(true);
});
$('sector').addEventListener('change', () => { state.sector = $('sector').value; state.seed = newSeed(); go(true); });
$('goal').addEventListener('change', () => { state.goal = $('goal').value; state.seed = newSeed(); go(true); });
$('nextpuzzle').addEventListener('click', () => { state.seed = newSeed(); go(true); });
$('retry').addEventListener('click', () => {
  state.attempt = null;
  state.line = [];
  state.ply = 0;
  load();
});
$('reveal').addEventListener('click', () => { state.revealed = true; render(); });
$('playon').addEventListener('click', () => {
  state.color = state.puzzle.side_to_move;
  state.mode = 'play';
  state.attempt = null;
  state.line = state.line.slice(0, state.ply);
  go(true);
});
$('load').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = $('paste').value.trim();
  if (state.mode === 'train') state.mode = 'explore';
  if (text.includes('/')) {
    state.fen = text; state.line = []; state.ply = 0;
  } else {
    state.fen = ''; state.line = text.split(/[\s,]+/).filter((t) => t); state.ply = state.line.length;
  }
  go(true);
});
window.addEventListener('popstate', () => { readUrl(); load(); });
readUrl();
go(false);
