#!/usr/bin/python3
"""One wiring of the twelve knobs as a definition (docs/PUZZLES.md, "Puzzles as data").

   bench/knobs_as_data.py KNOBS_IN > wiring.tws

KNOBS_IN is the knobs puzzle's original input (12 lines: a knob's position, then the knobs
it turns from positions 1..4; the positions are ignored). Each knob is a position of one set
of 12 pieces that never move, its orientation 0..3 the position 1..4 it shows; turning knob
i is a guarded move of four blocks, one for each position knob i shows, turning knob i and
the knob it is wired to there by one. bench/builtin_as_data.sh sets it beside the model's
table of that wiring. (A generator of such files from a wiring, served as one puzzle, is
still to come.)
"""
import sys


def main():
    rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
    if len(rows) != 12 or any(len(r) != 5 for r in rows):
        sys.exit(f"{sys.argv[1]}: want 12 lines of 5 numbers (the knobs' original input)")
    wiring = [[int(x) for x in r[1:]] for r in rows]
    out = ["# The twelve knobs, one wiring (bench/knobs_as_data.py)", "Name Twelve knobs, one wiring",
           "Set K 12 4", "Solved", "K", " ".join(str(k) for k in range(1, 13)), "End", ""]
    for knob in range(1, 13):
        for shown in range(4):
            other = wiring[knob - 1][shown]
            if other == knob or not 1 <= other <= 12:
                sys.exit(f"{sys.argv[1]}: line {knob}: knob {knob} is wired to {other} (another knob, 1 to 12)")
            twists = ["1" if k in (knob, other) else "0" for k in range(1, 13)]
            out += [f"Move {knob}", f"If K {knob} {knob} {shown}", "K", " ".join(str(k) for k in range(1, 13)),
                    " ".join(twists), "End"]
    print("\n".join(out))


main()
