// The puzzledb page: draws a board, edits it, and shows the server's answers. It names no
// puzzle: the server lists them (/v1/puzzles) with a layout to draw each position by (cells
// on a grid, the symbol of each value), and every rule stays on the server: states are read
// (/v1/parse), edited and played (/v1/play) by the puzzle's model.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';

// The puzzles as the server describes them (GET /v1/puzzles), by name: what the page knows
// of a puzzle is only what that list says.
const PUZZLES = {};

const $ = (id) => document.getElementById(id);

const view = {
  puzzle: '',
  state: '',       // the position being edited or analyzed (compact form)
  cells: [],       // its cells' values (the layout's), as /v1/play gives them
  legal: [],       // the names of the moves that apply there, as /v1/play gives them
  cellMoves: [],   // what a click on a cell that plays a move also changes (/v1/play)
  table: '',       // the table that answers it (/v1/play's table_id)
  selected: -1,    // the first cell of a swap
  states: null,    // a solution's positions ({state, cells, legal, cellMoves}), start first
  moves: [],       // a solution's move names
  step: 0,                       // the board shown: states[step]
  timer: null,
};

// ------------------------------------------------------------------ the server

// A puzzle with a table per parameter set: its state rides along where only the
// parameters matter (sampling).
const hasParams = (puzzle) => Boolean(PUZZLES[puzzle] && PUZZLES[puzzle].has_parameters);

// The table that answers the position shown, sent as the header puzzledb-table so that a
// proxy in front of several replicas sends each table's calls to one replica
// (docs/OPERATIONS.md, "Replicas behind nginx"): as /v1/play named it.
function tableOf() {
  return view.table || view.puzzle;
}

// GET or POST a JSON API call; throws an Error whose message is the server's, in words
// (and its gRPC code as `code`).
async function call(path, body) {
  let response;
  const table = {'puzzledb-table': tableOf()};
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

// Shows a position: its cells and table from the server's model (/v1/play), or why the
// state is refused. `cells`, if given, edits `state`'s cells (a click on the board).
async function setPosition(puzzle, state, kind, cells) {
  view.puzzle = puzzle;
  view.selected = -1;
  $('puzzle').value = puzzle;
  $('hint').textContent = PUZZLES[puzzle].layout.hint;
  clearResult();
  try {
    const body = {puzzle, state};
    if (cells) body.cells = cells;
    const played = await call('/v1/play', body);
    const now = played.states[0];
    view.state = now.state;
    view.cells = now.cells;
    view.legal = now.legal_moves || [];
    view.cellMoves = now.cell_moves || [];
    view.table = now.table_id;
  } catch (e) {
    view.state = state;
    view.cells = [];
    view.legal = [];
    view.cellMoves = [];
    view.table = '';
    showError(e.message);
  }
  $('state').value = view.state;
  const layout = PUZZLES[puzzle].layout;
  $('edit-by-hand-box').hidden = !layout.cells.some((c) => c.move);
  render();
  saveUrl(kind);
}

function shownState() {
  return view.states ? view.states[view.step].state : view.state;
}

function shownCells() {
  return view.states ? view.states[view.step].cells : view.cells;
}

function shownLegal() {
  return view.states ? view.states[view.step].legal : view.legal;
}

function shownCellMoves() {
  return view.states ? view.states[view.step].cellMoves : view.cellMoves;
}

// A button for each move that applies to the board shown (the server's model says which):
// a click plays it there and shows the new position.
function renderPlayMoves() {
  const row = $('play-moves');
  row.textContent = '';
  const legal = shownLegal();
  if (legal.length === 0) return;
  const label = document.createElement('span');
  label.className = 'hint';
  label.textContent = 'Play a move:';
  row.appendChild(label);
  for (const name of legal) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = name;
    button.dataset.move = name;
    button.addEventListener('click', () => playOne(name));
    row.appendChild(button);
  }
}

async function playOne(name) {
  const from = shownState();
  try {
    const played = await call('/v1/play', {puzzle: view.puzzle, state: from, moves: [name]});
    await setPosition(view.puzzle, played.states[1].state, '');
  } catch (e) {
    showError(e.message);
  }
}

function render() {
  const board = $('board');
  board.textContent = '';
  const now = shownCells();
  const changed = new Set();
  if (view.states && view.step > 0) {
    const before = view.states[view.step - 1].cells;
    now.forEach((c, i) => { if (c !== before[i]) changed.add(i); });
  }
  if (now.length > 0) {
    board.appendChild(drawBoard(PUZZLES[view.puzzle], now, changed, shownCellMoves()));
  }
  renderPlayMoves();
  if (view.states) {
    $('step').textContent = 'move ' + view.step + ' of ' + view.moves.length +
        (view.step === view.moves.length ? ' (goal)' : '');
    $('moves').querySelectorAll('li').forEach((li, i) => {
      li.classList.toggle('current', i === view.step - 1);
    });
  }
}

// A click on cell i: the cell's own move where the layout gives it one (unless editing by
// hand), played on the board shown; else an edit: swap it with the selected cell, or give
// it the next value, as the puzzle's layout says; the server checks the edit.
function clickCell(i) {
  if (view.states) {  // editing a solution's board starts from it
    view.state = shownState();
    view.cells = shownCells();
    clearResult();
  }
  const layout = PUZZLES[view.puzzle].layout;
  const move = layout.cells[i].move;
  if (move && !$('edit-by-hand').checked) {
    if (shownLegal().includes(move)) playOne(move);
    return;
  }
  const cells = view.cells.slice();
  if (layout.edit === 'CYCLE') {
    const values = layout.symbols.map((s) => s.value);
    cells[i] = values[(values.indexOf(cells[i]) + 1) % values.length];
  } else if (view.selected < 0) {
    view.selected = i;
    render();
    return;
  } else {
    [cells[i], cells[view.selected]] = [cells[view.selected], cells[i]];
    view.selected = -1;
  }
  setPosition(view.puzzle, view.state, undefined, cells);
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
    view.states = played.states.map((s) => ({state: s.state, cells: s.cells,
                                             legal: s.legal_moves || [],
                                             cellMoves: s.cell_moves || []}));
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
    await setPosition(view.puzzle, played.states[1].state, 'analyze');
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

const UNIT = 60;  // pixels of one grid unit

// A position drawn by its puzzle's layout: each cell a square on the grid, filled and
// labelled by the symbol of its value; clickable to play the cell's move or to edit. A
// cell whose move changes other cells names them under its symbol (a wiring, at
// this position); the layout's regions are outlined over the cells and named.
function drawBoard(puzzle, cells, changed, cellMoves) {
  const layout = puzzle.layout;
  const root = svg(layout.width * UNIT, layout.height * UNIT, puzzle.title);
  const symbols = new Map(layout.symbols.map((s) => [s.value, s]));
  const also = new Map((cellMoves || []).map((m) => [m.cell || 0, m.also_changes || []]));
  layout.cells.forEach((place, i) => {
    const symbol = symbols.get(cells[i]) || {text: String(cells[i]), fill: '#ffffff'};
    const x = place.x * UNIT, y = place.y * UNIT;
    const g = el('g', {class: 'cell' + (changed.has(i) ? ' moved' : '') +
                               (view.selected === i ? ' selected' : ''),
                       'data-cell': String(i)});
    const others = (also.get(i) || []).map((j) => layout.cells[j].name);
    const title = el('title', {}, place.name + (place.move && others.length > 0
        ? ': a click turns it and ' + others.join(', ') : ''));
    g.appendChild(title);
    g.appendChild(el('rect', {x: x + 2, y: y + 2, width: UNIT - 4, height: UNIT - 4, rx: 6,
                              style: 'fill: ' + symbol.fill}));
    const shift = others.length > 0 ? -7 : 0;
    g.appendChild(el('text', {x: x + UNIT / 2, y: y + UNIT / 2 + 1 + shift}, symbol.text));
    if (others.length > 0) {
      g.appendChild(el('text', {x: x + UNIT / 2, y: y + UNIT - 11, class: 'also'},
                       '\u21bb ' + others.join(', ')));
    }
    g.addEventListener('click', () => clickCell(i));
    root.appendChild(g);
  });
  for (const region of layout.regions || []) {
    const x = (region.x || 0) * UNIT, y = (region.y || 0) * UNIT;
    const w = region.width * UNIT, h = region.height * UNIT;
    const g = el('g', {class: 'region'});
    g.appendChild(el('title', {}, region.text));
    g.appendChild(el('rect', {x: x - 1, y: y - 1, width: w + 2, height: h + 2, rx: 8}));
    g.appendChild(el('text', {x: x + w / 2, y: y + h / 2}, region.text));
    root.appendChild(g);
  }
  for (const label of layout.labels) {
    root.appendChild(el('text', {x: label.x * UNIT, y: label.y * UNIT, class: 'label'},
                        label.text));
  }
  return root;
}

// ------------------------------------------------------------------ random positions

// The slider's range: 0 to the largest distance of the puzzle's table (for a puzzle with
// parameters, of the current parameters'). Sampling needs a table; without one the control
// says why.
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
  // The generic form in, the generic form (compact states) out.
  const puzzle = {name: view.puzzle};
  if (hasParams(view.puzzle)) puzzle.state = view.state;
  try {
    const sample = await call('/v1/sample', {
      puzzle, distance: Number($('distance').value), count: 1,
      seed: String(Math.floor(Math.random() * 4294967296))});
    if (!sample.states || sample.states.length === 0) {
      $('sample-note').textContent = 'No position is ' + sample.distance + ' moves away.';
      return;
    }
    await setPosition(view.puzzle, sample.states[0].state);
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

async function pickCase(c) {
  if (c.error) {
    showError(c.error);
    return;
  }
  await setPosition(view.puzzle, c.state, 'solve');
  if (hasParams(view.puzzle)) prepareSampler();
  solve();
}

async function start() {
  let listed;
  try {
    listed = await (await fetch('/v1/puzzles')).json();
  } catch (e) {
    showError('cannot read the puzzles from the server (' + e.message + ')');
    return;
  }
  const select = $('puzzle');
  for (const puzzle of listed.puzzles) {
    PUZZLES[puzzle.name] = puzzle;
    const option = document.createElement('option');
    option.value = puzzle.name;
    option.textContent = puzzle.title;
    select.appendChild(option);
  }
  const first = listed.puzzles[0].name;
  select.addEventListener('change', async () => {
    await setPosition(select.value, PUZZLES[select.value].example);
    prepareSampler();
  });
  $('distance').addEventListener('input', showDistance);
  $('draw').addEventListener('click', drawRandom);
  $('reset').addEventListener('click', () =>
    setPosition(view.puzzle, PUZZLES[view.puzzle].example));
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
  const puzzle = PUZZLES[q.get('puzzle')] ? q.get('puzzle') : first;
  if (q.has('max_moves')) $('max-moves').value = q.get('max_moves');
  const state = q.get('state') !== null ? q.get('state') : PUZZLES[puzzle].example;
  const kind = q.get('view') === 'analyze' ? 'analyze' : q.has('state') ? 'solve' : '';
  await setPosition(puzzle, state, kind);
  prepareSampler();
  if (!q.has('state')) return;
  (kind === 'analyze' ? analyze : solve)();
}

start();
