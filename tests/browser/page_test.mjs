// The web page in a real browser: Debian's Chromium driven by playwright-core.
//   node page_test.mjs SERVER_BINARY CLI_BINARY DB ARTIFACTS_DIR
// Starts its own puzzledb-server (on free loopback ports, with a copy of DB), opens a shared
// link for every puzzle and checks the distance and moves shown against the in-process
// answer of the CLI (the tables, without HTTP), clicks through a solution to the goal,
// edits a board, analyzes and plays a move, draws random positions at a distance, triggers
// errors, checks the phone-sized layout, and calls the API from pages of two other origins:
// one the server's --http-cors-origins allows (it reads even the engine's own 413), one it
// does not. Screenshots go to ARTIFACTS_DIR. Exits non-zero after the checks if any failed.
import {spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {chromium} from 'playwright-core';

const [serverBinary, cliBinary, sourceDb, artifacts] = process.argv.slice(2);
if (!artifacts) {
  console.error('usage: node page_test.mjs SERVER_BINARY CLI_BINARY DB ARTIFACTS_DIR');
  process.exit(2);
}
fs.mkdirSync(artifacts, {recursive: true});

let failures = 0;
function check(condition, what) {
  if (condition) {
    console.log('ok   ' + what);
  } else {
    console.log('FAIL ' + what);
    failures++;
  }
}

// Every puzzle: a position in compact form and the same in the original input format.
const CASES = {
  knight: {
    state: '11111011110011*0000100000',
    original: (s) => '1\n' + s.match(/.{5}/g).join('\n') + '\n',
  },
  knobs: {
    state: '1 10 8 12 7 3 4 4 8 3 3 5 4 7 11 1 7 9 9 5 3 3 8 2 7 1 11 9 1 12 3 4 11 1 8 3 ' +
           '10 12 9 5 3 1 7 6 2 1 12 11 4 6 4 9 12 12 5 2 5 6 1 9',
    original: (s) => s.split(' ').reduce((rows, n, i) =>
      rows + n + (i % 5 === 4 ? '\n' : ' '), ''),
  },
  rotation: {
    state: '113231213132131232232213',
    original: (s) => s.split('').join(' ') + '\n0\n',
  },
  eight: {
    state: '283104765',
    original: (s) => s + '\n',
  },
};

// The answer of the tables in-process, through the CLI: {distance, moves, count}.
function expected(puzzle, state) {
  const run = spawnSync(cliBinary, ['--db', db, 'solve', '--puzzle', puzzle, '--max-moves', '0',
                                    '--json', '--count'],
                        {input: CASES[puzzle].original(state), encoding: 'utf8'});
  if (run.status !== 0) throw new Error(`CLI failed for ${puzzle} ${state}: ${run.stderr}`);
  const answer = JSON.parse(run.stdout.trim().split('\n')[0]);
  return {outcome: answer.outcome, distance: answer.distance, moves: answer.moves,
          count: answer.optimal_count};
}

// A copy of the database: the server may add tables to its own.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'puzzledb-browser-'));
const db = path.join(scratch, 'db');
fs.cpSync(sourceDb, db, {recursive: true});

const answers = {};
for (const [puzzle, c] of Object.entries(CASES)) answers[puzzle] = expected(puzzle, c.state);
const editedEight = '823104765';  // the sample with its first two cells swapped
const editedAnswer = expected('eight', editedEight);

// Two other origins, each serving an empty page on a free port: the server lets the first
// call it from a browser (CORS), not the second.
const otherOrigin = async () => {
  const site = http.createServer((request, response) => {
    response.writeHead(200, {'Content-Type': 'text/html'});
    response.end('<!doctype html><title>another origin</title><p>calls puzzledb</p>');
  });
  await new Promise((r) => site.listen(0, '127.0.0.1', r));
  return {site, origin: `http://127.0.0.1:${site.address().port}`};
};
const allowedSite = await otherOrigin();
const deniedSite = await otherOrigin();

// The server, on free ports; its start-up line gives the page's address.
const logPath = path.join(artifacts, 'server.log');
const log = fs.openSync(logPath, 'w');
const server = spawn(serverBinary, ['--db', db, '--listen', '127.0.0.1:0', '--http',
                                    '127.0.0.1:0', '--drain', '0',
                                    '--http-cors-origins', allowedSite.origin],
                     {stdio: ['ignore', log, log]});
let base = null;
for (let i = 0; i < 1200 && base === null; i++) {
  const match = fs.readFileSync(logPath, 'utf8').match(/web page on (http:\/\/127\.0\.0\.1:\d+\/)/);
  if (match) base = match[1];
  else if (server.exitCode !== null) break;
  else await new Promise((r) => setTimeout(r, 100));
}
if (base === null) {
  console.error('the server did not start:\n' + fs.readFileSync(logPath, 'utf8'));
  process.exit(1);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({viewport: {width: 1100, height: 900}});
page.setDefaultTimeout(20000);
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.message));
// Every table answer's table_id, beside the puzzledb-table header its request carried
// (docs/API.md, "Table affinity": the page computes it as other clients do).
const tableHeaders = [];
page.on('response', (r) => {
  if (!r.url().includes('/v1/solve')) return;
  tableHeaders.push(r.json().then((a) => ({sent: r.request().headers()['puzzledb-table'],
                                           table: a.table_id}), () => null));
});

const shown = async () => ({
  summary: await page.textContent('#summary'),
  moves: await page.$$eval('#moves li button', (b) => b.map((x) => x.textContent)),
});
const distanceIn = (summary) => {
  const m = summary.match(/Distance (\d+)|distance (0)/);
  return m ? Number(m[1] ?? m[2]) : null;
};

try {
  // 1. A shared link of every puzzle shows its answer without a click.
  for (const [puzzle, c] of Object.entries(CASES)) {
    const link = base + '?' + new URLSearchParams({puzzle, state: c.state}).toString();
    await page.goto(link);
    await page.waitForFunction(() => /Distance|distance 0|Unsolvable/.test(
      document.getElementById('summary').textContent));
    const got = await shown();
    const want = answers[puzzle];
    check(distanceIn(got.summary) === want.distance,
          `${puzzle}: the link shows distance ${want.distance} (page: "${got.summary}")`);
    const count = BigInt(want.count).toLocaleString('en');
    check(got.summary.includes(' ' + count + ' optimal solution'),
          `${puzzle}: the link shows the table's ${count} optimal solutions`);
    if (want.distance > 0) {
      await page.waitForSelector('#player:not([hidden])');
      const moves = (await shown()).moves;
      check(JSON.stringify(moves) === JSON.stringify(want.moves),
            `${puzzle}: the moves shown are the table's (${want.moves.join(' ')}; page: ` +
            `${moves.join(' ')})`);
    }
    check(await page.inputValue('#state') === c.state, `${puzzle}: the state box holds the link's state`);
    await page.screenshot({path: path.join(artifacts, `${puzzle}.png`), fullPage: true});
  }

  // 1b. The fifteen puzzle: a link shows the searched answer (no count: pattern tables
  // count nothing), and playing it through reaches the goal.
  {
    await page.goto(base + '?puzzle=fifteen&state=2340157896acdebf');
    await page.waitForSelector('#player:not([hidden])');
    const got = await shown();
    check(distanceIn(got.summary) === 9, `fifteen: the link shows distance 9 (page: "${got.summary}")`);
    check(got.moves.join('') === 'LLLDRDRDR', `fifteen: the moves shown are LLLDRDRDR (${got.moves.join('')})`);
    check(await page.$$eval('#board svg g.cell', (g) => g.length) === 16, 'fifteen: 16 cells drawn');
    for (let i = 0; i < 9; i++) await page.click('#next');
    const cells = await page.$$eval('#board svg g.cell text', (t) => t.map((x) => x.textContent));
    check(cells.join(',') === '1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,',
          `fifteen: after 9 clicks on next the board is the goal (${cells.join(',')})`);
    await page.screenshot({path: path.join(artifacts, 'fifteen-played.png'), fullPage: true});
  }

  // 1c. The 2x2x2 cube: a link draws its net of 24 stickers in colour, solves it from the
  // table, and stepping through the solution ends on the solved cube; swapping two stickers
  // of one corner is refused naming the rule.
  {
    const cube = 'DDDBRBFRLULRUULFBFUFRLDB';
    await page.goto(base + '?puzzle=cube2&state=' + cube);
    await page.waitForSelector('#player:not([hidden])');
    const got = await shown();
    check(distanceIn(got.summary) === 11 && /72 optimal solutions/.test(got.summary),
          `cube2: the link shows distance 11 and 72 optimal solutions (page: "${got.summary}")`);
    check(got.moves.join(' ') === "U R2 U' F R' F U2 R' U' R F'",
          `cube2: the moves shown are the statement's (${got.moves.join(' ')})`);
    check(await page.$$eval('#board svg g.cell', (g) => g.length) === 24, 'cube2: 24 stickers drawn');
    const fills = await page.$$eval('#board svg g.cell rect', (r) => new Set(r.map((x) => x.style.fill)).size);
    check(fills === 6, `cube2: the stickers have 6 colours (${fills})`);
    for (let i = 0; i < 11; i++) await page.click('#next');
    // Solved: each face one colour, six colours (in the letters the cube was given in).
    const stickers = (await page.$$eval('#board svg g.cell text', (t) => t.map((x) => x.textContent))).join('');
    check(/^(.)\1{3}(.)\2{3}(.)\3{3}(.)\4{3}(.)\5{3}(.)\6{3}$/.test(stickers) &&
          new Set(stickers).size === 6,
          `cube2: after 11 clicks on next the cube is solved (${stickers})`);
    check((await page.textContent('#step')).includes('(goal)'), 'cube2: the step counter says goal');
    await page.screenshot({path: path.join(artifacts, 'cube2-played.png'), fullPage: true});
    await page.goto(base + '?puzzle=cube2');
    await page.waitForSelector('#board svg g.cell');
    await page.click('#board [data-cell="3"]');
    await page.click('#board [data-cell="4"]');
    await page.waitForSelector('#error:not([hidden])');
    const refused = await page.textContent('#error');
    check(/corner URF .*mirrored/.test(refused), `cube2: a mirrored corner is refused naming it ("${refused}")`);
  }

  // 1c'. A cube sent in its own colours stays in them on the page.
  {
    const colours = 'WWWWBBRRRRGGYYYYGGOOOOBB';
    await page.goto(base + '?puzzle=cube2&state=' + colours);
    await page.waitForSelector('#player:not([hidden])');
    check(await page.inputValue('#state') === colours,
          `cube2: a cube in its own colours keeps them (${await page.inputValue('#state')})`);
    await page.click('#next');
    await page.click('#board [data-cell="0"]');  // an edit from the board shown
    await page.click('#board [data-cell="0"]');  // the same cell twice: no change, re-read
    await page.waitForFunction((s) => document.getElementById('state').value !== s, colours)
      .catch(() => {});
    const after = await page.inputValue('#state');
    check(after === 'WWWWRRRRGGGGYYYYOOOOBBBB',
          `cube2: the board after its one move, edited, is in the cube's colours (${after})`);
  }

  // 1c''. The knobs: each knob names the knob it turns at its position (the wiring, read here
  // from the input itself: knob i's line is its position then the knob each position turns),
  // a click on a knob turns both, and Edit by hand turns the one.
  {
    const numbers = CASES.knobs.state.split(' ').map(Number);
    const positions = (s) => s.split(' ').map(Number).filter((_, i) => i % 5 === 0);
    const wiredTo = (s, knob) => Number(s.split(' ')[5 * knob + positions(s)[knob]]);
    await page.goto(base + '?puzzle=knobs&state=' + encodeURIComponent(CASES.knobs.state));
    await page.waitForSelector('#player:not([hidden])');
    const captions = await page.$$eval('#board svg g.cell', (g) => g.map((x) => {
      const also = x.querySelector('text.also');
      return also ? also.textContent : '';
    }));
    const wanted = positions(CASES.knobs.state).map((_, k) => '\u21bb knob ' + wiredTo(CASES.knobs.state, k));
    check(JSON.stringify(captions) === JSON.stringify(wanted),
          `knobs: each knob names the knob it is wired to at its position (${captions.join(', ')})`);
    await page.screenshot({path: path.join(artifacts, 'knobs-wiring.png'), fullPage: true});
    const before = await page.inputValue('#state');
    const knob = 4;  // knob 5
    const other = wiredTo(before, knob) - 1;
    await page.click(`#board [data-cell="${knob}"]`);
    await page.waitForFunction((s) => document.getElementById('state').value !== s, before);
    const played = await page.inputValue('#state');
    const turned = positions(before).map((p, k) => k === knob || k === other ? p % 4 + 1 : p);
    check(JSON.stringify(positions(played)) === JSON.stringify(turned),
          `knobs: a click on knob ${knob + 1} turns it and knob ${other + 1} ` +
          `(${positions(before).join(' ')} -> ${positions(played).join(' ')})`);
    check(played.split(' ').filter((_, i) => i % 5 !== 0).join(' ') ===
          numbers.filter((_, i) => i % 5 !== 0).join(' '), 'knobs: the wiring stays');
    await page.check('#edit-by-hand');
    await page.click(`#board [data-cell="${knob}"]`);
    await page.waitForFunction((s) => document.getElementById('state').value !== s, played);
    const edited = await page.inputValue('#state');
    const one = positions(played).map((p, k) => k === knob ? p % 4 + 1 : p);
    check(JSON.stringify(positions(edited)) === JSON.stringify(one),
          `knobs: by hand, a click turns knob ${knob + 1} alone (${positions(edited).join(' ')})`);
    await page.uncheck('#edit-by-hand');
    await page.goto(base + '?puzzle=eight');
    await page.waitForSelector('#board svg g.cell');
    check(await page.isHidden('#edit-by-hand-box'), 'eight: no Edit by hand (its cells have no moves)');
  }

  // 1c'''. The rotation game: its centre is outlined and named around the eight centre cells.
  {
    await page.goto(base + '?puzzle=rotation');
    await page.waitForSelector('#board svg g.region');
    const region = await page.$eval('#board svg g.region', (g) => {
      const r = g.querySelector('rect').getBBox();
      return {x: r.x, y: r.y, w: r.width, h: r.height, text: g.querySelector('text').textContent};
    });
    const centres = await page.$$eval('#board svg g.cell', (g) => g.map((x) => {
      const r = x.querySelector('rect').getBBox();
      return [Number(x.dataset.cell), r.x + r.width / 2, r.y + r.height / 2];
    }));
    const inside = centres.filter(([, cx, cy]) => cx > region.x && cx < region.x + region.w &&
                                                 cy > region.y && cy < region.y + region.h)
      .map(([i]) => i + 1);
    check(region.text === 'centre' && inside.join(' ') === '7 8 9 12 13 16 17 18',
          `rotation: the region "${region.text}" holds cells ${inside.join(' ')} (the centre: 7 8 9 12 13 16 17 18)`);
    await page.screenshot({path: path.join(artifacts, 'rotation-centre.png'), fullPage: true});
  }

  // 1d. Puzzles given as definitions (the test database holds two): listed, drawn a set a
  // row (label, then /orientation), answered as their samples say, played through to the
  // goal, and played by the buttons of the moves that apply there (as the CLI's analysis
  // of the goal lists them, in-process).
  {
    const listed = await page.$$eval('#puzzle option', (o) => o.map((x) => x.value));
    const samples = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'golden',
                              'definitions');
    for (const [name, goal, cells] of [['slide32', '1 2 3 4 5 6', 6],
                                       ['cube2urf', '1 2 3 4 5 6 7 8 / 0 0 0 0 0 0 0 0', 8]]) {
      check(listed.includes(name), `${name}: the page lists the definition (${listed.join(' ')})`);
      const state = fs.readFileSync(path.join(samples, name + '.in'), 'utf8').split('\n')[0];
      const want = fs.readFileSync(path.join(samples, name + '.out'), 'utf8').split('\n')[0];
      await page.goto(base + '?' + new URLSearchParams({puzzle: name, state}).toString());
      await page.waitForSelector('#player:not([hidden])');
      const got = await shown();
      check(`${distanceIn(got.summary)} ${got.moves.join(' ')}` === want,
            `${name}: the link shows the sample's answer ${want} (page: "${got.summary}", ` +
            `${got.moves.join(' ')})`);
      check(await page.$$eval('#board svg g.cell', (g) => g.length) === cells,
            `${name}: ${cells} cells drawn in its set's row`);
      check(/Each row is a set/.test(await page.textContent('#hint')), `${name}: the hint explains the rows`);
      if (name === 'cube2urf') {
        const texts = await page.$$eval('#board svg g.cell text', (t) => t.map((x) => x.textContent));
        check(texts.some((t) => /^\d\/[12]$/.test(t)),
              `cube2urf: a turned corner shows its orientation (${texts.join(' ')})`);
      }
      await page.screenshot({path: path.join(artifacts, `${name}.png`), fullPage: true});
      for (let i = 0; i < got.moves.length; i++) await page.click('#next');
      check((await page.textContent('#step')).includes('(goal)'), `${name}: the step counter says goal`);
      const atGoal = await page.$$eval('#board svg g.cell text', (t) => t.map((x) => x.textContent));
      check(atGoal.join(' ') === goal.split(' / ')[0],
            `${name}: after ${got.moves.length} clicks on next the board is the goal (${atGoal.join(' ')})`);
      // The goal's move buttons: the moves that apply there.
      const run = spawnSync(cliBinary, ['--db', db, 'analyze', '--puzzle', name, '--json'],
                            {input: goal + '\n', encoding: 'utf8'});
      const legal = JSON.parse(run.stdout.trim()).moves.map((m) => m.move);
      const buttons = await page.$$eval('#play-moves button', (b) => b.map((x) => x.textContent));
      check(JSON.stringify(buttons) === JSON.stringify(legal),
            `${name}: the goal's move buttons are the moves that apply there (${legal.join(' ')}; ` +
            `page: ${buttons.join(' ')})`);
      await page.click(`#play-moves button[data-move="${legal[0]}"]`);
      await page.waitForFunction((g) => document.getElementById('state').value !== g &&
                                        document.getElementById('state').value !== '', goal);
      await page.click('#solve');
      await page.waitForSelector('#player:not([hidden])');
      const after = await shown();
      check(distanceIn(after.summary) === 1,
            `${name}: one move played from the goal is 1 move away (page: "${after.summary}")`);
      await page.screenshot({path: path.join(artifacts, `${name}-played.png`), fullPage: true});
    }
    // A state that breaks a rule: the page shows the server's reason, naming the set.
    await page.goto(base + '?puzzle=slide32&state=' + encodeURIComponent('1 2 3 4 5 5'));
    await page.waitForSelector('#error:not([hidden])');
    const refused = await page.textContent('#error');
    check(/set T: holds label 5 2 times, the goal once/.test(refused),
          `slide32: a bad state is refused naming the set and the rule ("${refused}")`);
  }

  // 2. Clicking through the 8-puzzle's solution reaches the goal board.
  await page.goto(base + '?puzzle=eight&state=' + CASES.eight.state);
  await page.waitForSelector('#player:not([hidden])');
  for (let i = 0; i < answers.eight.distance; i++) await page.click('#next');
  const finalCells = await page.$$eval('#board .cell text', (t) => t.map((x) => x.textContent || '0'));
  check(finalCells.join('') === '123804765',
        `eight: after ${answers.eight.distance} clicks on next the board is the goal (${finalCells.join('')})`);
  check((await page.textContent('#step')).includes('(goal)'), 'eight: the step counter says goal');
  await page.click('#prev');
  check((await page.textContent('#step')).startsWith(`move ${answers.eight.distance - 1} of`),
        'eight: previous goes back one move');
  await page.screenshot({path: path.join(artifacts, 'eight-played.png'), fullPage: true});

  // 3. Editing: swap two cells, then solve the new board.
  await page.goto(base + '?puzzle=eight&state=' + CASES.eight.state);
  await page.waitForSelector('#player:not([hidden])');
  await page.click('#board [data-cell="0"]');
  await page.click('#board [data-cell="1"]');
  // The edit is the server's to check (/v1/play): the state box follows its answer.
  await page.waitForFunction((s) => document.getElementById('state').value === s, editedEight)
    .catch(() => {});
  check(await page.inputValue('#state') === editedEight, `eight: swapping cells 1 and 2 gives ${editedEight}`);
  check(new URL(page.url()).searchParams.get('state') === editedEight, 'eight: the URL follows the edit');
  await page.click('#solve');
  await page.waitForFunction(() => /Distance|Unsolvable/.test(document.getElementById('summary').textContent));
  const edited = await page.textContent('#summary');
  check(editedAnswer.outcome === 'UNSOLVABLE' ? /Unsolvable/.test(edited)
                                              : distanceIn(edited) === editedAnswer.distance,
        `eight: the edited board's answer matches the table (${edited})`);

  // 4. Analyze lists every move best first; clicking the best one plays it.
  const rotation = CASES.rotation.state;
  await page.goto(base + '?' + new URLSearchParams({puzzle: 'rotation', state: rotation, view: 'analyze'}));
  await page.waitForSelector('#analysis:not([hidden])');
  const rows = await page.$$eval('#analysis tbody tr', (r) => r.map((x) => [
    x.cells[0].textContent, x.cells[1].textContent]));
  check(rows.length === 8, `rotation: analysis lists the 8 moves (${rows.length})`);
  check(Number(rows[0][1]) === answers.rotation.distance - 1 && rows[0][0] === answers.rotation.moves[0],
        `rotation: the first row is the solution's first move ${answers.rotation.moves[0]} at ` +
        `${answers.rotation.distance - 1} (${rows[0].join(' ')})`);
  const sorted = rows.map((r) => Number(r[1]));
  check(sorted.every((d, i) => i === 0 || sorted[i - 1] <= d), 'rotation: rows are best first');
  await page.screenshot({path: path.join(artifacts, 'rotation-analysis.png'), fullPage: true});
  await page.click('#analysis tbody tr:first-child button');
  await page.waitForFunction((d) => document.getElementById('summary').textContent.includes('Distance ' + d),
                             answers.rotation.distance - 1);
  check(new URL(page.url()).searchParams.get('state') !== rotation,
        'rotation: playing a move changes the position in the URL');

  // 5. Errors are shown in words next to the board.
  await page.goto(base + '?puzzle=knight&state=11');
  await page.waitForSelector('#error:not([hidden])');
  const error = await page.textContent('#error');
  check(/25 cells/.test(error) && /INVALID_ARGUMENT/.test(error),
        `knight: a short state is refused in words ("${error}")`);
  await page.screenshot({path: path.join(artifacts, 'error.png'), fullPage: true});
  await page.goto(base + '?puzzle=eight');
  await page.click('#paste-box summary');
  await page.fill('#paste', '283104765\n12345678x\n');
  await page.click('#read');
  await page.waitForSelector('#cases:not([hidden])');
  await page.selectOption('#cases', '1');
  await page.waitForSelector('#error:not([hidden])');
  check(/case 2, line 2/.test(await page.textContent('#error')),
        'eight: a pasted input\'s bad case names its line');

  // 6. A random position at a chosen distance: the farthest knight boards.
  await page.goto(base + '?puzzle=knight');
  await page.waitForSelector('#sampler:not([hidden])');
  check(await page.getAttribute('#distance', 'max') === '39',
        'knight: the distance slider reaches the largest distance, 39');
  await page.$eval('#distance', (slider) => {
    slider.value = '39';
    slider.dispatchEvent(new Event('input'));
  });
  check(await page.textContent('#distance-shown') === '39', 'knight: the slider shows 39');
  await page.click('#draw');
  await page.waitForFunction(() => /One of/.test(document.getElementById('sample-note').textContent));
  const note = await page.textContent('#sample-note');
  check(/One of 62 positions exactly 39 moves/.test(note), `knight: 62 positions at 39 ("${note}")`);
  const drawn = await page.inputValue('#state');
  check(drawn !== CASES.knight.state && expected('knight', drawn).distance === 39,
        `knight: the drawn board ${drawn} is 39 moves away by the CLI`);
  await page.click('#solve');
  await page.waitForFunction(() => /Distance 39/.test(document.getElementById('summary').textContent));
  await page.screenshot({path: path.join(artifacts, 'knight-random-39.png'), fullPage: true});
  // The knobs slider follows the wiring of the position shown.
  await page.goto(base + '?puzzle=knobs&state=' + encodeURIComponent(CASES.knobs.state));
  await page.waitForSelector('#sampler:not([hidden])');
  const knobsLargest = Number(await page.getAttribute('#distance', 'max'));
  check(knobsLargest >= 18 && knobsLargest <= 20,
        `knobs: the slider reaches the wiring's largest distance (${knobsLargest})`);

  // 7. Phone-sized: nothing wider than the window.
  await page.setViewportSize({width: 390, height: 844});
  await page.goto(base + '?puzzle=knobs&state=' + encodeURIComponent(CASES.knobs.state));
  await page.waitForSelector('#player:not([hidden])');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  check(width <= 390, `phone: the page fits 390 px (scroll width ${width})`);
  await page.screenshot({path: path.join(artifacts, 'phone-knobs.png'), fullPage: true});

  // 8. Pages on other origins (CORS): the allowed one's calls are answered, with the headers
  // it may read; the other's are blocked by the browser, all of them.
  const callFrom = async (origin) => {
    const other = await browser.newPage();
    await other.goto(origin + '/');
    const results = await other.evaluate(async (api) => {
      const json = {'Content-Type': 'application/json'};
      const calls = {
        'GET /v1/solve': () => fetch(api + 'v1/solve?puzzle=eight&state=283104765'),
        'POST /v1/solve': () => fetch(api + 'v1/solve', {
          method: 'POST', headers: {...json, 'puzzledb-table': 'eight', 'X-Request-Id': 'page-1'},
          body: JSON.stringify({puzzle: {eight: {board: '283104765'}}})}),
        'POST /v1/solve/batch': () => fetch(api + 'v1/solve/batch', {
          method: 'POST', headers: json,
          body: JSON.stringify({requests: [{puzzle: {eight: {board: '283104765'}}},
                                           {puzzle: {eight: {board: '123804765'}}}]})}),
        'GET /v1/puzzles': () => fetch(api + 'v1/puzzles'),
        // Over the 64 KiB a request's body may hold: the engine refuses it from its
        // Content-Length, and the page can read why.
        'POST /v1/solve, too large': () => fetch(api + 'v1/solve', {
          method: 'POST', headers: {...json, 'X-Request-Id': 'page-big'},
          body: JSON.stringify({puzzle: {name: 'eight', state: '283104765'}}) +
                ' '.repeat(70000)}),
      };
      const out = {};
      for (const [name, call] of Object.entries(calls)) {
        try {
          const r = await call();
          out[name] = {status: r.status, etag: r.headers.get('ETag'),
                       id: r.headers.get('X-Request-Id'), body: await r.json()};
        } catch (e) {
          out[name] = {error: String(e)};
        }
      }
      return out;
    }, base);
    await other.close();
    return results;
  };
  const allowed = await callFrom(allowedSite.origin);
  const got = (name) => allowed[name] || {};
  check(got('GET /v1/solve').body?.distance === 4 &&
        (got('GET /v1/solve').etag || '').startsWith('W/"eight.'),
        `cross-origin, allowed: GET /v1/solve answers, its ETag readable (${JSON.stringify(got('GET /v1/solve'))})`);
  check(got('POST /v1/solve').body?.distance === 4 && got('POST /v1/solve').id === 'page-1',
        `cross-origin, allowed: POST /v1/solve (a preflight) answers, X-Request-Id echoed (${JSON.stringify(got('POST /v1/solve'))})`);
  check(JSON.stringify((got('POST /v1/solve/batch').body?.responses || []).map((r) => r.distance)) === '[4,0]',
        `cross-origin, allowed: a batch answers (${JSON.stringify(got('POST /v1/solve/batch'))})`);
  check((got('GET /v1/puzzles').body?.puzzles || []).some((p) => p.name === 'eight'),
        `cross-origin, allowed: GET /v1/puzzles answers`);
  check(got('POST /v1/solve, too large').status === 413 &&
        got('POST /v1/solve, too large').body?.code === 'RESOURCE_EXHAUSTED' &&
        got('POST /v1/solve, too large').id === 'page-big',
        `cross-origin, allowed: the engine's 413 is readable, with its request id (${JSON.stringify(got('POST /v1/solve, too large'))})`);
  const denied = await callFrom(deniedSite.origin);
  check(Object.keys(denied).length === 5 &&
        Object.values(denied).every((r) => /Failed to fetch/.test(r.error || '')),
        `cross-origin, not allowed: the browser blocks all five calls (${JSON.stringify(denied)})`);

  const pairs = (await Promise.all(tableHeaders)).filter((p) => p && p.table);
  check(pairs.length > 0 && pairs.every((p) => p.sent === p.table),
        `every table answer's request named its table (${JSON.stringify(pairs.filter((p) => p.sent !== p.table))})`);
  check(pairs.some((p) => p.table.startsWith('knobs-')), 'a knobs wiring\'s table was named');
  check(pageErrors.length === 0, `no script errors on the page (${pageErrors.join('; ')})`);
} catch (e) {
  console.log('FAIL ' + e.stack);
  failures++;
} finally {
  await browser.close();
  server.kill('SIGTERM');
  allowedSite.site.close();
  deniedSite.site.close();
  await new Promise((r) => server.exitCode !== null ? r() : server.on('exit', r));
  fs.rmSync(scratch, {recursive: true, force: true});
}
console.log(failures === 0 ? 'all checks passed' : `${failures} checks failed`);
process.exit(failures === 0 ? 0 : 1);
