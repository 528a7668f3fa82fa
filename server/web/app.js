// The puzzledb page: draws a board, edits it, and shows the server's answers. Every rule of
// a puzzle stays on the server: states are read (/v1/parse) and moves played (/v1/play) by
// the puzzle's model; this file only draws the compact forms of docs/API.md.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';

// One entry per puzzle: the sample position, how the compact form splits into cells, how
// a click edits it, and how a board is drawn.
const PUZZLES = {
  knight: {
    sample: '1111111111000*10000100000',
    hint: 'Click two cells to swap them. White knights are 1, black knights 0.',
    cells: (s) => s.split(''),
    join: (cells) => cells.join(''),
    fromWire: (m) => m.knight.board,
    draw: drawKnight,
  },
  knobs: {
    sample: '1 10 8 12 7 3 4 4 8 3 3 5 4 7 11 1 7 9 9 5 3 3 8 2 7 1 11 9 1 12 3 4 11 1 8 3 ' +
            '10 12 9 5 3 1 7 6 2 1 12 11 4 6 4 9 12 12 5 2 5 6 1 9',
    hint: 'Click a knob to turn it by hand (the wiring is not applied). ' +
          'Paste an input to change the wiring.',
    cells: (s) => s.trim().split(/\s+/),
    join: (cells) => cells.join(' '),
    fromWire: (m) => m.knobs.positions.map((p, k) =>
      [p].concat(m.knobs.wiring.slice(4 * k, 4 * k + 4)).join(' ')).join(' '),
    // A table per wiring: "knobs-" and the 64-bit FNV-1a hash of the 48 wiring numbers, each
    // less one (docs/API.md, "Table affinity"); "knobs" for a state that is not 12 knobs.
    table: (s) => {
      const numbers = s.trim().split(/\s+/).map(Number);
      if (numbers.length !== 60) return 'knobs';
      let hash = 14695981039346656037n;
      for (let i = 0; i < 60; i++) {
        if (i % 5 === 0) continue;  // a knob's state, not its wiring
        if (!(numbers[i] >= 1 && numbers[i] <= 12)) return 'knobs';
        hash = ((hash ^ BigInt(numbers[i] - 1)) * 1099511628211n) & 0xffffffffffffffffn;
      }
      return 'knobs-' + hash.toString(16).padStart(16, '0');
    },
    // A click turns the knob by hand; the other boards swap two cells.
    click: (cells, i) => { cells[5 * i] = String(Number(cells[5 * i]) % 4 + 1); },
    draw: drawKnobs,
  },
  rotation: {
    sample: '233233121112233123123112',
    hint: 'Click two cells to swap them. The goal: the eight centre cells alike.',
    cells: (s) => s.split(''),
    join: (cells) => cells.join(''),
    fromWire: (m) => m.rotation.cells.join(''),
    draw: drawRotation,
  },
  eight: {
    sample: '283104765',
    hint: 'Click two cells to swap them. The goal is 123 / 804 / 765.',
    cells: (s) => s.split(''),
    join: (cells) => cells.join(''),
    fromWire: (m) => m.eight.board,
    draw: drawEight,
  },
  fifteen: {
    sample: '2340157896acdebf',
    hint: 'Click two cells to swap them. The goal is 1..15 row by row, the empty place last. ' +
          'Answered by search over pattern tables: no count of optimal solutions.',
    cells: (s) => s.toLowerCase().split(''),
    join: (cells) => cells.join(''),
    fromWire: (m) => m.fifteen.cells.map((n) => n.toString(16)).join(''),
    draw: drawFifteen,
  },
};

const $ = (id) => document.getElementById(id);

const view = {
  puzzle: 'knight',
  state: PUZZLES.knight.sample,  // the position being edited or analyzed
  selected: -1,                  // the first cell of a swap
  states: null,                  // a solution's boards (compact), start first
  moves: [],                     // a solution's move names
  step: 0,                       // the board shown: states[step]
  timer: null,
};

// ------------------------------------------------------------------ the server

// A puzzle with a table per parameter set (the knobs' wiring) names it from the state,
// which then also rides along where only the parameters matter (sampling).
const hasParams = (puzzle) => Boolean(PUZZLES[puzzle] && PUZZLES[puzzle].table);

// The table that answers the position shown, sent as the header puzzledb-table so that a
// proxy in front of several replicas sends each table's calls to one replica
// (docs/OPERATIONS.md, "Replicas behind nginx"): the puzzle's name, unless it has a table
// per parameter.
function tableOf(puzzle, state) {
  const entry = PUZZLES[puzzle];
  return entry && entry.table ? entry.table(state) : puzzle;
}

// GET or POST a JSON API call; throws an Error whose message is the server's, in words
// (and its gRPC code as `code`).
async function call(path, body) {
  let response;
  const table = {'puzzledb-table': tableOf(view.puzzle, view.state)};
  try {
    response = body === undefined
      ? await fetch(path, {headers: table})
      : await fetch(path, {
        method: 'POST',
        headers: {'Content-Type': 'application/json', ...table},
        body: JSON.stringify(body),
      });
  } catch (e) {
    throw new Error('cannot reach the server (' + e.message + ')');
  }
  let data = null;
  try {
    data = await response.json();
  } catch (e) {
    throw new Error('the server answered ' + response.status + ' without JSON');
  }
  if (!response.ok) {
    const error = new Error(data && data.message ? data.message + ' (' + data.code + ')'
                                                 : 'the server answered ' + response.status);
    error.code = data && data.code;
    throw error;
  }
  return data;
}

// An answer with its optimal solutions counted where a table covers the position, else
// the plain answer (counting needs a table: FAILED_PRECONDITION).
async function counted(path) {
  try {
    return await call(path + '&count=1');
  } catch (e) {
    if (e.code !== 'FAILED_PRECONDITION') throw e;
    return await call(path);
  }
}

function solutions(count) {
  if (!count || count === '0') return '';
  return ' · ' + BigInt(count).toLocaleString('en') +
         (count === '1' ? ' optimal solution' : ' optimal solutions');
}

function query(extra) {
  const q = new URLSearchParams({puzzle: view.puzzle, state: view.state});
  const max = $('max-moves').value.trim();
  if (max !== '' && max !== '0') q.set('max_moves', max);
  for (const [k, v] of Object.entries(extra || {})) q.set(k, v);
  return q;
}

// ------------------------------------------------------------------ the page's state

// The URL holds the position and the view, so that a link shows the same answer.
function saveUrl(kind) {
  const q = query(kind ? {view: kind} : {});
  history.replaceState(null, '', '/?' + q.toString());
}

function showError(message) {
  const error = $('error');
  error.textContent = message;
  error.hidden = !message;
}

function clearResult() {
  stopAutoplay();
  view.states = null;
  view.moves = [];
  view.step = 0;
  $('summary').textContent = '';
  $('player').hidden = true;
  $('analysis').hidden = true;
  showError('');
}

function setPosition(puzzle, state, kind) {
  view.puzzle = puzzle;
  view.state = state;
  view.selected = -1;
  $('puzzle').value = puzzle;
  $('state').value = state;
  $('hint').textContent = PUZZLES[puzzle].hint;
  clearResult();
  render();
  saveUrl(kind);
}

function shownState() {
  return view.states ? view.states[view.step] : view.state;
}

function render() {
  const board = $('board');
  board.textContent = '';
  const now = shownState();
  let changed = new Set();
  if (view.states && view.step > 0) {
    const before = PUZZLES[view.puzzle].cells(view.states[view.step - 1]);
    PUZZLES[view.puzzle].cells(now).forEach((c, i) => { if (c !== before[i]) changed.add(i); });
  }
  board.appendChild(PUZZLES[view.puzzle].draw(PUZZLES[view.puzzle].cells(now), changed));
  if (view.states) {
    $('step').textContent = 'move ' + view.step + ' of ' + view.moves.length +
        (view.step === view.moves.length ? ' (goal)' : '');
    $('moves').querySelectorAll('li').forEach((li, i) => {
      li.classList.toggle('current', i === view.step - 1);
    });
  }
}

// A click on cell i while editing: swap with the selected cell (or cycle a knob).
function clickCell(i) {
  if (view.states) {  // editing a solution's board starts from it
    view.state = shownState();
    clearResult();
  }
  const puzzle = PUZZLES[view.puzzle];
  const cells = puzzle.cells(view.state);
  if (puzzle.click) {
    puzzle.click(cells, i);
  } else if (view.selected < 0) {
    view.selected = i;
    render();
    return;
  } else {
    [cells[i], cells[view.selected]] = [cells[view.selected], cells[i]];
    view.selected = -1;
  }
  setPosition(view.puzzle, puzzle.join(cells));
}

// ------------------------------------------------------------------ solve and analyze

async function solve() {
  clearResult();
  saveUrl('solve');
  $('summary').textContent = 'Solving…';
  try {
    const answer = await counted('/v1/solve?' + query().toString());
    $('summary').textContent = describe(answer.outcome, answer.distance, answer.source,
                                        answer.micros) + solutions(answer.optimal_count);
    if (answer.outcome !== 'SOLVED') return;
    const played = await call('/v1/play', {puzzle: view.puzzle, state: view.state,
                                           moves: answer.moves});
    view.states = played.states.map((s) => s.state);
    view.moves = answer.moves;
    view.step = 0;
    const list = $('moves');
    list.textContent = '';
    answer.moves.forEach((name, i) => {
      const li = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = name;
      button.addEventListener('click', () => { stopAutoplay(); view.step = i + 1; render(); });
      li.appendChild(button);
      list.appendChild(li);
    });
    $('player').hidden = false;
    render();
  } catch (e) {
    $('summary').textContent = '';
    showError(e.message);
  }
}

async function analyze() {
  clearResult();
  saveUrl('analyze');
  $('summary').textContent = 'Analyzing…';
  try {
    const answer = await counted('/v1/analyze?' + query().toString());
    $('summary').textContent = describe(answer.outcome, answer.distance, answer.source,
                                        answer.micros) + solutions(answer.optimal_count);
    const body = $('analysis').querySelector('tbody');
    body.textContent = '';
    for (const move of answer.moves || []) {
      const row = document.createElement('tr');
      const best = answer.outcome === 'SOLVED' && move.outcome === 'SOLVED' &&
                   move.distance + 1 === answer.distance;
      row.className = best ? 'best' : '';
      const name = document.createElement('td');
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = move.move;
      button.addEventListener('click', () => playMove(move.move));
      name.appendChild(button);
      const distance = document.createElement('td');
      distance.textContent = move.outcome === 'SOLVED' ? String(move.distance)
                                                       : words(move.outcome);
      const note = document.createElement('td');
      note.textContent = !best ? ''
          : move.optimal_count ? 'optimal (' + BigInt(move.optimal_count).toLocaleString('en') + ')'
                               : 'optimal';
      row.append(name, distance, note);
      body.appendChild(row);
    }
    $('analysis').hidden = false;
  } catch (e) {
    $('summary').textContent = '';
    showError(e.message);
  }
}

// Plays one move (by the server's model) and analyzes the new position.
async function playMove(name) {
  try {
    const played = await call('/v1/play', {puzzle: view.puzzle, state: view.state,
                                           moves: [name]});
    setPosition(view.puzzle, played.states[1].state, 'analyze');
    analyze();
  } catch (e) {
    showError(e.message);
  }
}

function words(outcome) {
  return {NOT_WITHIN_LIMIT: 'beyond the move limit', UNSOLVABLE: 'unsolvable'}[outcome] ||
         outcome;
}

function describe(outcome, distance, source, micros) {
  const how = ' (' + (source === 'TABLE' ? 'from the table' : 'by live search') + ', ' +
              micros + ' µs)';
  if (outcome === 'SOLVED') {
    return (distance === 0 ? 'Already solved: distance 0'
                           : 'Distance ' + distance + ': the shortest solution has ' +
                             distance + (distance === 1 ? ' move' : ' moves')) + how;
  }
  if (outcome === 'NOT_WITHIN_LIMIT') return 'Not solvable within the move limit' + how;
  return 'Unsolvable: no sequence of moves reaches the goal' + how;
}

function stopAutoplay() {
  if (view.timer) clearInterval(view.timer);
  view.timer = null;
  $('autoplay').textContent = 'Autoplay';
}

function step(delta) {
  if (!view.states) return;
  view.step = Math.max(0, Math.min(view.moves.length, view.step + delta));
  render();
}

// ------------------------------------------------------------------ drawing

function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function svg(width, height, label) {
  return el('svg', {viewBox: '0 0 ' + width + ' ' + height, role: 'img', 'aria-label': label});
}

// A square cell at (x, y) holding `text`; clickable when editing.
function cell(root, i, x, y, size, text, cls, changed) {
  const g = el('g', {class: 'cell ' + cls + (changed.has(i) ? ' moved' : '') +
                             (view.selected === i ? ' selected' : ''),
                     'data-cell': String(i)});
  g.appendChild(el('rect', {x, y, width: size - 4, height: size - 4, rx: 6}));
  g.appendChild(el('text', {x: x + (size - 4) / 2, y: y + (size - 4) / 2 + 1}, text));
  g.addEventListener('click', () => clickCell(i));
  root.appendChild(g);
}

function drawKnight(cells, changed) {
  const root = svg(5 * 60 + 24, 5 * 60 + 24, 'knight board');
  for (let i = 0; i < 25; i++) {
    const x = 24 + (i % 5) * 60, y = Math.floor(i / 5) * 60;
    const c = cells[i];
    cell(root, i, x, y, 60, c === '1' ? '♘' : c === '0' ? '♞' : '',
         c === '1' ? 'white' : c === '0' ? 'black' : 'empty', changed);
  }
  for (let k = 0; k < 5; k++) {
    root.appendChild(el('text', {x: 24 + k * 60 + 28, y: 5 * 60 + 16, class: 'label'},
                        'abcde'[k]));
    root.appendChild(el('text', {x: 10, y: k * 60 + 30, class: 'label'}, String(k + 1)));
  }
  return root;
}

function drawEight(cells, changed) {
  const root = svg(3 * 90, 3 * 90, '8-puzzle board');
  for (let i = 0; i < 9; i++) {
    cell(root, i, (i % 3) * 90, Math.floor(i / 3) * 90, 90, cells[i] === '0' ? '' : cells[i],
         cells[i] === '0' ? 'empty' : 'tile', changed);
  }
  return root;
}

// The compact form's hexadecimal digits, drawn as the numbers 1..15.
function drawFifteen(cells, changed) {
  const root = svg(4 * 80, 4 * 80, 'fifteen puzzle board');
  for (let i = 0; i < 16; i++) {
    const value = parseInt(cells[i], 16);
    cell(root, i, (i % 4) * 80, Math.floor(i / 4) * 80, 80, value === 0 ? '' : String(value),
         value === 0 ? 'empty' : 'tile', changed);
  }
  return root;
}

// Cells of the rotation game by (row, column) on a 7×7 grid, in the original numbering.
const ROTATION_PLACES = [
  [0, 2], [0, 4], [1, 2], [1, 4],
  [2, 0], [2, 1], [2, 2], [2, 3], [2, 4], [2, 5], [2, 6],
  [3, 2], [3, 4],
  [4, 0], [4, 1], [4, 2], [4, 3], [4, 4], [4, 5], [4, 6],
  [5, 2], [5, 4], [6, 2], [6, 4],
];
const ROTATION_CENTRE = new Set([6, 7, 8, 11, 12, 15, 16, 17]);
const ROTATION_LABELS = [['A', -1, 2], ['B', -1, 4], ['C', 2, 7], ['D', 4, 7],
                         ['E', 7, 4], ['F', 7, 2], ['G', 4, -1], ['H', 2, -1]];

function drawRotation(cells, changed) {
  const size = 44, pad = size;
  const root = svg(9 * size, 9 * size, 'rotation game board');
  ROTATION_PLACES.forEach(([r, c], i) => {
    cell(root, i, pad + c * size, pad + r * size, size, cells[i],
         'v' + cells[i] + (ROTATION_CENTRE.has(i) ? ' centre' : ''), changed);
  });
  for (const [name, r, c] of ROTATION_LABELS) {
    root.appendChild(el('text', {x: pad + c * size + size / 2 - 2, y: pad + r * size + size / 2,
                                 class: 'label'}, name));
  }
  return root;
}

function drawKnobs(cells, changed) {
  const root = svg(4 * 120, 3 * 150, 'twelve knobs');
  for (let k = 0; k < 12; k++) {
    const cx = 60 + (k % 4) * 120, cy = 55 + Math.floor(k / 4) * 150;
    const state = Number(cells[5 * k]);
    const g = el('g', {class: 'cell knob' + (changed.has(5 * k) ? ' moved' : ''),
                       'data-cell': String(k)});
    g.appendChild(el('circle', {cx, cy, r: 30}));
    // Positions 1..4 point up, right, down, left.
    const angle = (state - 1) * Math.PI / 2;
    g.appendChild(el('line', {x1: cx, y1: cy, x2: cx + 24 * Math.sin(angle),
                              y2: cy - 24 * Math.cos(angle)}));
    for (let p = 0; p < 4; p++) {
      const a = p * Math.PI / 2;
      g.appendChild(el('text', {x: cx + 38 * Math.sin(a), y: cy - 38 * Math.cos(a) + 1,
                                class: 'mark' + (p + 1 === state ? ' on' : '')}, String(p + 1)));
    }
    g.appendChild(el('text', {x: cx, y: cy + 56, class: 'label'}, 'knob ' + (k + 1)));
    // The wiring: the knob turned with it from states 1..4.
    g.appendChild(el('text', {x: cx, y: cy + 74, class: 'label wiring'},
                     'wired ' + cells.slice(5 * k + 1, 5 * k + 5).join(' ')));
    g.addEventListener('click', () => clickCell(k));
    root.appendChild(g);
  }
  return root;
}

// ------------------------------------------------------------------ random positions

// The slider's range: 0 to the largest distance of the puzzle's table (for the knobs, of
// the current wiring's). Sampling needs a table; without one the control says why.
async function prepareSampler() {
  const puzzle = view.puzzle;
  const q = new URLSearchParams({puzzle: puzzle, distance: 'max', count: '0'});
  if (hasParams(puzzle)) q.set('state', view.state);
  $('sampler').hidden = true;
  try {
    const largest = await call('/v1/sample?' + q.toString());
    if (puzzle !== view.puzzle) return;
    const slider = $('distance');
    slider.max = String(largest.distance);
    if (Number(slider.value) > largest.distance) slider.value = String(largest.distance);
    showDistance();
    $('sampler').hidden = false;
    $('sample-note').textContent = '';
  } catch (e) {
    $('sample-note').textContent = 'Random positions need a table: ' + e.message;
  }
}

function showDistance() {
  $('distance-shown').textContent = $('distance').value;
}

async function drawRandom() {
  showError('');
  const q = new URLSearchParams({puzzle: view.puzzle, distance: $('distance').value, count: '1',
                                 seed: String(Math.floor(Math.random() * 4294967296))});
  if (hasParams(view.puzzle)) q.set('state', view.state);
  try {
    const sample = await call('/v1/sample?' + q.toString());
    if (!sample.states || sample.states.length === 0) {
      $('sample-note').textContent = 'No position is ' + sample.distance + ' moves away.';
      return;
    }
    setPosition(view.puzzle, PUZZLES[view.puzzle].fromWire(sample.states[0]));
    $('sample-note').textContent = 'One of ' + Number(sample.population).toLocaleString('en') +
        ' positions exactly ' + sample.distance + ' moves from the goal, drawn uniformly' +
        ' (seed ' + sample.seed + ').';
  } catch (e) {
    showError(e.message);
  }
}

// ------------------------------------------------------------------ wiring up

async function readInput() {
  showError('');
  try {
    const parsed = await call('/v1/parse', {puzzle: view.puzzle, input: $('paste').value});
    const cases = $('cases');
    cases.textContent = '';
    parsed.cases.forEach((c, i) => {
      const option = document.createElement('option');
      option.value = String(i);
      option.textContent = 'case ' + c.number + (c.error ? ': refused' : '');
      cases.appendChild(option);
    });
    cases.hidden = parsed.cases.length < 2;
    cases.onchange = () => pickCase(parsed.cases[Number(cases.value)]);
    pickCase(parsed.cases[0]);
  } catch (e) {
    showError(e.message);
  }
}

function pickCase(c) {
  if (c.error) {
    showError(c.error);
    return;
  }
  setPosition(view.puzzle, c.state, 'solve');
  if (hasParams(view.puzzle)) prepareSampler();
  solve();
}

function start() {
  $('puzzle').addEventListener('change', () => {
    setPosition($('puzzle').value, PUZZLES[$('puzzle').value].sample);
    prepareSampler();
  });
  $('distance').addEventListener('input', showDistance);
  $('draw').addEventListener('click', drawRandom);
  $('reset').addEventListener('click', () =>
    setPosition(view.puzzle, PUZZLES[view.puzzle].sample));
  $('state').addEventListener('change', () => setPosition(view.puzzle, $('state').value.trim()));
  $('solve').addEventListener('click', solve);
  $('analyze').addEventListener('click', analyze);
  $('read').addEventListener('click', readInput);
  $('first').addEventListener('click', () => { stopAutoplay(); view.step = 0; render(); });
  $('prev').addEventListener('click', () => { stopAutoplay(); step(-1); });
  $('next').addEventListener('click', () => { stopAutoplay(); step(1); });
  $('autoplay').addEventListener('click', () => {
    if (view.timer) return stopAutoplay();
    if (view.states && view.step === view.moves.length) view.step = 0;
    $('autoplay').textContent = 'Pause';
    view.timer = setInterval(() => {
      if (!view.states || view.step >= view.moves.length) return stopAutoplay();
      step(1);
    }, 700);
  });

  // A shared link: show its answer at once.
  const q = new URLSearchParams(location.search);
  const puzzle = PUZZLES[q.get('puzzle')] ? q.get('puzzle') : 'knight';
  if (q.has('max_moves')) $('max-moves').value = q.get('max_moves');
  const state = q.get('state') !== null ? q.get('state') : PUZZLES[puzzle].sample;
  const kind = q.get('view') === 'analyze' ? 'analyze' : q.has('state') ? 'solve' : '';
  setPosition(puzzle, state, kind);
  prepareSampler();
  if (!q.has('state')) return;
  (kind === 'analyze' ? analyze : solve)();
}

start();
