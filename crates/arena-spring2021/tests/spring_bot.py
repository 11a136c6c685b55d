# A Spring Challenge 2021 bot that misbehaves on purpose, for the process tests. Usage: MODE PIDDIR
# It records its pid (and its child's) in PIDDIR so the tests can check nothing is left running.
import os
import subprocess
import sys
import time

mode, piddir = sys.argv[1], sys.argv[2]


def note_pid(pid):
    open(os.path.join(piddir, "%d.pid" % pid), "w").close()


note_pid(os.getpid())
if mode == "spin_at_end":
    child = subprocess.Popen(["sleep", "1000"])  # same process group, inherits the pipes
    note_pid(child.pid)

first = True
turn = 0
while True:
    if first:
        cells = sys.stdin.readline()
        if not cells:
            break
        for _ in range(int(cells)):
            sys.stdin.readline()
        first = False
    day = sys.stdin.readline()
    if not day:
        break
    turn += 1
    for _ in range(3):
        sys.stdin.readline()
    for _ in range(int(sys.stdin.readline())):
        sys.stdin.readline()
    moves = [sys.stdin.readline().strip() for _ in range(int(sys.stdin.readline()))]
    answer = moves[1] if len(moves) > 1 else "WAIT"
    # The tests run these with limits doubled (2000 ms first, 200 ms later).
    if mode == "slow_first" and turn == 1:
        time.sleep(3.0)
    if mode == "slow_later" and turn == 3:
        time.sleep(0.6)
    if mode == "garbage" and turn == 2:
        answer = "hello world"
    if mode == "crash" and turn == 2:
        sys.exit(3)
    if mode == "flood":
        sys.stderr.write("x" * 200000 + "\n")
        sys.stderr.flush()
    sys.stdout.write(answer + " message " + str(turn) + "\n")
    sys.stdout.flush()

if mode == "spin_at_end":
    while True:
        pass
