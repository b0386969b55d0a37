// The page of `cqlrs serve`: editor, run/stop, the growing list of matches, the board.
// Talks to the server's JSON API only (see docs/serve.md); no other site is reached.
'use strict';

const $ = (selector) => document.querySelector(selector);
const token = new URLSearchParams(location.search).get('token');
const state = {
  tab: null, since: 0, polling: false, running: false, game: null, node: 0,
  chosen: -1, rows: 0, checkTimer: null, checkSerial: 0, surveyTimer: null,
};

function withToken(path) {
  return token ? path + (path.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token) : path;
}

async function api(path, body) {
  const options = { headers: {} };
  if (token) options.headers['X-Cqlrs-Token'] = token;
  if (body !== undefined) {
    options.method = 'POST';
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  const reply = await fetch(path, options);
  let data;
  try { data = await reply.json(); } catch (e) { data = { error: 'the server answered ' + reply.status }; }
  if (!reply.ok) throw new Error(data.error || ('the server answered ' + reply.status));
  return data;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

// ---- the editor -----------------------------------------------------------------------

function lineCount() { return $('#query').value.split('\n').length; }

function drawGutter(badLines) {
  const gutter = $('#gutter');
  gutter.textContent = '';
  const bad = new Set(badLines || []);
  for (let i = 1; i <= lineCount(); i++) {
    const d = el('div', bad.has(i) ? 'bad' : '', String(i));
    gutter.appendChild(d);
  }
  gutter.scrollTop = $('#query').scrollTop;
}

function showErrors(errors) {
  const list = $('#errors');
  list.textContent = '';
  const lines = [];
  for (const e of errors || []) {
    const where = e.line ? `${e.line}:${e.column}: ` : '';
    const item = el('li', 'error', where + e.message);
    if (e.hint) item.appendChild(el('span', 'hint', 'hint: ' + e.hint));
    if (e.line) {
      lines.push(e.line);
      item.dataset.line = e.line;
      item.dataset.column = e.column;
      item.addEventListener('click', () => selectSpan(e.start, e.end));
    }
    list.appendChild(item);
  }
  $('#query').classList.toggle('has-error', (errors || []).length > 0);
  drawGutter(lines);
}

function selectSpan(start, end) {
  const q = $('#query');
  q.focus();
  q.setSelectionRange(start, Math.max(end, start + 1));
}

function languageName(s) {
  return { cql6: 'CQL 6', legacy: 'legacy CQL', yacpdb: 'YACPDB' }[s] || s;
}

async function checkNow() {
  const serial = ++state.checkSerial;
  try {
    const r = await api('/api/check', { query: $('#query').value, syntax: $('#syntax').value });
    if (serial !== state.checkSerial) return;
    if (r.ok) {
      showErrors([]);
      $('#language').textContent = 'read as ' + languageName(r.syntax);
    } else {
      showErrors(r.errors);
      $('#language').textContent = '';
    }
  } catch (e) { /* checking while typing is a convenience: Run reports errors too */ }
}

function scheduleCheck() {
  drawGutter([]);
  clearTimeout(state.checkTimer);
  state.checkTimer = setTimeout(checkNow, 350);
}

// ---- running a query ------------------------------------------------------------------

function setRunning(running) {
  state.running = running;
  $('#stop').disabled = !running && $('#survey-status').dataset.state !== 'running';
  $('#run').textContent = running ? 'Run again' : 'Run';
}

function clearResults() {
  $('#results').textContent = '';
  state.since = 0;
  state.rows = 0;
  state.chosen = -1;
  $('#count').textContent = '';
  $('#warnings').textContent = '';
  const a = $('#download');
  a.classList.add('disabled');
  a.setAttribute('aria-disabled', 'true');
  a.removeAttribute('href');
}

async function run() {
  if (!state.tab) return;
  clearTimeout(state.checkTimer);
  let r;
  try {
    r = await api('/api/run', { tab: state.tab, query: $('#query').value, syntax: $('#syntax').value });
  } catch (e) {
    showErrors([{ message: e.message }]);
    return;
  }
  if (!r.ok) {
    showErrors(r.errors);
    $('#progress-text').textContent = 'The query has errors; nothing was run.';
    $('#progress').dataset.state = 'error';
    return;
  }
  showErrors([]);
  $('#language').textContent = 'read as ' + languageName(r.syntax);
  clearResults();
  setRunning(true);
  $('#progress').dataset.state = 'running';
  $('#progress-text').textContent = 'Starting…';
  if (!state.polling) poll();
}

async function stop() {
  if (!state.tab) return;
  try { await api('/api/stop', { tab: state.tab }); } catch (e) { /* the next status says */ }
}

function addRow(m) {
  const row = el('div', 'row');
  row.dataset.game = m.number;
  row.dataset.index = m.i;
  row.setAttribute('role', 'option');
  row.appendChild(el('span', 'num', '#' + m.number));
  const players = el('span', 'players', `${m.white ?? '?'} – ${m.black ?? '?'}`);
  const detail = [m.event, m.date, m.eco].filter((x) => x && x !== '?' && x !== '????.??.??').join(' · ');
  players.appendChild(el('small', '', detail));
  row.appendChild(players);
  row.appendChild(el('span', 'res', m.result ?? ''));
  const count = el('span', 'count', String(m.positions));
  count.title = m.positions + ' matching position' + (m.positions === 1 ? '' : 's');
  row.appendChild(count);
  row.addEventListener('click', () => openGame(m.i));
  $('#results').appendChild(row);
  state.rows++;
}

function showProgress(s) {
  const rate = s.rate ? Math.round(s.rate).toLocaleString('en') : '0';
  const secs = (s.seconds || 0).toFixed(2);
  let text = `${(s.read || 0).toLocaleString('en')} games read · ${(s.matched || 0).toLocaleString('en')} matches · ${rate} games/s · ${secs} s`;
  if (s.state !== 'running' && s.summary) text = s.summary;
  if (s.first_match_seconds != null) text += ` · first match after ${s.first_match_seconds.toFixed(2)} s`;
  $('#progress-text').textContent = text;
  $('#progress').dataset.state = s.state;
  $('#meter-fill').style.width = s.fraction != null ? (100 * s.fraction).toFixed(1) + '%' : (s.state === 'running' ? '100%' : '0');
  $('#count').textContent = s.matched ? `(${s.matched.toLocaleString('en')})` : '';
  const warnings = $('#warnings');
  if ((s.warnings || []).length !== warnings.children.length) {
    warnings.textContent = '';
    for (const w of s.warnings || []) warnings.appendChild(el('li', '', w));
    if (s.warning_count > (s.warnings || []).length) {
      warnings.appendChild(el('li', '', `… ${s.warning_count - s.warnings.length} more`));
    }
  }
}

async function poll() {
  state.polling = true;
  try {
    for (;;) {
      let s;
      try {
        s = await api(`/api/status?tab=${state.tab}&since=${state.since}`);
      } catch (e) {
        $('#progress-text').textContent = e.message;
        setRunning(false);
        break;
      }
      for (const m of s.matches || []) addRow(m);
      state.since = s.next || state.since;
      showProgress(s);
      if (state.chosen < 0 && state.rows > 0) openGame(0);
      const more = state.since < (s.matched || 0);
      if (s.state !== 'running' && !more) {
        setRunning(false);
        if (s.state !== 'idle') {
          const a = $('#download');
          a.href = withToken(`/api/download?tab=${state.tab}`);
          a.classList.remove('disabled');
          a.setAttribute('aria-disabled', 'false');
        }
        break;
      }
      if (!more) await new Promise((done) => setTimeout(done, 150));
    }
  } finally {
    state.polling = false;
  }
}

// ---- the board ------------------------------------------------------------------------

const GLYPHS = { k: '\u265A', q: '\u265B', r: '\u265C', b: '\u265D', n: '\u265E', p: '\u265F\uFE0E' };

function buildBoard() {
  const board = $('#board');
  board.textContent = '';
  for (let r = 7; r >= 0; r--) {
    for (let f = 0; f < 8; f++) {
      const name = 'abcdefgh'[f] + (r + 1);
      const sq = el('div', 'sq ' + ((r + f) % 2 === 1 ? 'l' : 'd'));
      sq.dataset.square = name;
      if (f === 0) sq.appendChild(el('span', 'coord', String(r + 1)));
      if (r === 0) { const c = el('span', 'coord', 'abcdefgh'[f]); c.classList.add('file'); sq.appendChild(c); }
      board.appendChild(sq);
    }
  }
}

function drawPosition(fen, from, to, marked) {
  const rows = fen.split(' ')[0].split('/');
  const board = $('#board');
  for (const p of board.querySelectorAll('.piece')) p.remove();
  for (const s of board.querySelectorAll('.hl')) s.classList.remove('hl');
  rows.forEach((row, i) => {
    let f = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) { f += Number(ch); continue; }
      const name = 'abcdefgh'[f] + (8 - i);
      const sq = board.querySelector(`[data-square="${name}"]`);
      if (sq) {
        const white = ch === ch.toUpperCase();
        const piece = el('span', 'piece ' + (white ? 'w' : 'b'), GLYPHS[ch.toLowerCase()] || '?');
        piece.dataset.piece = ch;
        sq.appendChild(piece);
      }
      f++;
    }
  });
  for (const name of [from, to]) {
    const sq = name && board.querySelector(`[data-square="${name}"]`);
    if (sq) sq.classList.add('hl');
  }
  board.classList.toggle('marked', !!marked);
  board.dataset.fen = fen;
}

function goTo(n) {
  const g = state.game;
  if (!g || n == null || n < 0 || n >= g.nodes.length) return;
  state.node = n;
  const node = g.nodes[n];
  drawPosition(node.fen, node.from, node.to, node.marked);
  $('#fen').value = node.fen;
  for (const m of $('#moves').querySelectorAll('.current')) m.classList.remove('current');
  const span = $('#moves').querySelector(`[data-node="${n}"]`);
  if (span) {
    span.classList.add('current');
    span.scrollIntoView({ block: 'nearest' });
  }
  $('#moves').dataset.current = n;
}

function step(delta) {
  const g = state.game;
  if (!g) return;
  const node = g.nodes[state.node];
  if (delta > 0 && node.main != null) goTo(node.main);
  if (delta < 0 && node.parent != null) goTo(node.parent);
}

function toEnd() {
  const g = state.game;
  if (!g) return;
  let n = state.node;
  for (let i = 0; i < g.nodes.length && g.nodes[n].main != null; i++) n = g.nodes[n].main;
  goTo(n);
}

function nextMatch() {
  const g = state.game;
  if (!g) return;
  let n = state.node;
  for (let i = 0; i < g.nodes.length; i++) {
    n = g.nodes[n].main;
    if (n == null) return;
    if (g.nodes[n].marked) { goTo(n); return; }
  }
}

function drawMoves(g) {
  const moves = $('#moves');
  moves.textContent = '';
  for (const t of g.tokens) {
    let span;
    if (t.k === 'move') {
      span = el('span', 'move', t.t);
      span.dataset.node = t.n;
      if (g.nodes[t.n].marked) span.classList.add('marked');
      span.addEventListener('click', () => goTo(t.n));
    } else if (t.k === 'comment') {
      span = el('span', 'comment', '{' + t.t + '}');
    } else if (t.k === 'open' || t.k === 'close') {
      span = el('span', 'paren', t.k === 'open' ? '(' : ')');
    } else {
      span = el('span', t.k, t.t);
    }
    moves.appendChild(span);
    moves.appendChild(document.createTextNode(' '));
  }
}

async function openGame(index) {
  let g;
  try {
    g = await api(`/api/game?tab=${state.tab}&i=${index}`);
  } catch (e) {
    $('#game-title').textContent = e.message;
    return;
  }
  state.game = g;
  state.chosen = index;
  for (const r of $('#results').querySelectorAll('.chosen')) r.classList.remove('chosen');
  const row = $('#results').querySelector(`[data-index="${index}"]`);
  if (row) { row.classList.add('chosen'); row.scrollIntoView({ block: 'nearest' }); }
  const tag = (name) => (g.tags.find((t) => t[0] === name) || [])[1];
  $('#game-title').textContent = `Game ${g.number}: ${tag('White') ?? '?'} – ${tag('Black') ?? '?'} ${tag('Result') ?? ''}`;
  $('#viewer').dataset.game = g.number;
  const tags = $('#tags');
  tags.textContent = '';
  for (const [name, value] of g.tags) {
    tags.appendChild(el('dt', '', name));
    tags.appendChild(el('dd', '', value));
  }
  drawMoves(g);
  goTo(0);
}

function chooseRow(delta) {
  const next = state.chosen + delta;
  if (next >= 0 && next < state.rows) openGame(next);
}

// ---- the survey -----------------------------------------------------------------------

async function runSurvey() {
  const folder = Number($('#survey-folder').value);
  let r;
  try {
    r = await api('/api/survey', { tab: state.tab, folder });
  } catch (e) {
    $('#survey-status').textContent = e.message;
    return;
  }
  $('#survey-report').hidden = true;
  watchSurvey(r);
}

function watchSurvey(r) {
  clearTimeout(state.surveyTimer);
  const status = $('#survey-status');
  status.dataset.state = r.state;
  $('#stop').disabled = !(state.running || r.state === 'running');
  if (r.state === 'running') {
    status.textContent = `${r.themes} themes (${r.left_out} left out) · ${r.read.toLocaleString('en')} games read · ${r.seconds.toFixed(1)} s`;
    state.surveyTimer = setTimeout(async () => {
      try { watchSurvey(await api(`/api/survey-status?tab=${state.tab}`)); } catch (e) { status.textContent = e.message; }
    }, 300);
  } else if (r.state === 'done') {
    status.textContent = `${r.themes} themes over ${r.read.toLocaleString('en')} games in ${r.seconds.toFixed(2)} s`;
    const frame = $('#survey-report');
    frame.src = withToken(`/survey/report.html?tab=${state.tab}&t=${Date.now()}`);
    frame.hidden = false;
  } else if (r.state === 'failed') {
    status.textContent = r.error;
  }
}

// ---- start ----------------------------------------------------------------------------

async function start() {
  buildBoard();
  drawPosition('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
  drawGutter([]);
  try {
    const t = await api('/api/tab', {});
    state.tab = t.tab;
    $('#inputs').textContent = `${t.inputs.join(', ')} · scripts reach files: ${t.files} · cqlrs ${t.version}`;
    const select = $('#survey-folder');
    t.surveys.forEach((f, i) => { const o = el('option', '', f); o.value = i; select.appendChild(o); });
    if (t.surveys.length === 0) {
      $('#survey-run').disabled = true;
      select.disabled = true;
      $('#survey-status').textContent = 'Start the server with --survey DIR to run the survey of a folder of scripts here.';
    }
    document.body.dataset.ready = 'true';
    checkNow();
  } catch (e) {
    $('#inputs').textContent = e.message;
  }
}

$('#query').addEventListener('input', scheduleCheck);
$('#query').addEventListener('scroll', () => { $('#gutter').scrollTop = $('#query').scrollTop; });
$('#query').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); }
});
$('#syntax').addEventListener('change', checkNow);
$('#run').addEventListener('click', run);
$('#stop').addEventListener('click', stop);
$('#first').addEventListener('click', () => goTo(0));
$('#prev').addEventListener('click', () => step(-1));
$('#next').addEventListener('click', () => step(1));
$('#last').addEventListener('click', toEnd);
$('#next-match').addEventListener('click', nextMatch);
$('#survey-run').addEventListener('click', runSurvey);
document.addEventListener('keydown', (e) => {
  const t = e.target;
  if (t && (t.tagName === 'TEXTAREA' || t.tagName === 'INPUT' || t.tagName === 'SELECT')) return;
  const keys = {
    ArrowRight: () => step(1), ArrowLeft: () => step(-1), Home: () => goTo(0), End: toEnd,
    ArrowDown: () => chooseRow(1), ArrowUp: () => chooseRow(-1), n: nextMatch,
  };
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
});
start();
