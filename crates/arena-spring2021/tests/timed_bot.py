# A Spring Challenge 2021 bot that answers at a set time after its own first read of each turn, as
# Legend-level bots budget their time. Usage: MODE SCALE PIDDIR
#   inside: (95 + turn % 5) ms (95..99 ms) times SCALE;  late120 / late160: 120 / 160 ms times SCALE.
# It records its pid in PIDDIR so the tests can check nothing is left running, and prints on stderr,
# one line per turn, how long it took by its own clock (ms), for the `timing` example.
import os
import sys
import time

mode, scale, piddir = sys.argv[1], float(sys.argv[2]), sys.argv[3]
open(os.path.join(piddir, "%d.pid" % os.getpid()), "w").close()

first = True
turn = 0
while True:
    line = sys.stdin.readline()
    started = time.monotonic()  # the bot's own clock starts at its first read of the turn
    if not line:
        break
    if first:
        for _ in range(int(line)):
            sys.stdin.readline()
        first = False
        if not sys.stdin.readline():
            break
    turn += 1
    for _ in range(3):
        sys.stdin.readline()
    for _ in range(int(sys.stdin.readline())):
        sys.stdin.readline()
    moves = [sys.stdin.readline().strip() for _ in range(int(sys.stdin.readline()))]
    answer = moves[1] if len(moves) > 1 else "WAIT"
    if mode == "inside":
        budget = 95 + turn % 5
    elif mode == "late120":
        budget = 120
    else:
        budget = 160
    remaining = started + budget * scale / 1000.0 - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)
    own = (time.monotonic() - started) * 1000.0
    sys.stdout.write(answer + "\n")
    sys.stdout.flush()
    sys.stderr.write("%.3f\n" % own)
    sys.stderr.flush()
