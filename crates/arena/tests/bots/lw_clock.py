# A Lang Wars bot for the clock tests: before each answer it burns CPU (`burn MS`) or sleeps
# (`sleep MS`) for MS milliseconds, then plays like the starter bot. A third argument says how it
# ends: `linger` (never exits by itself), `segv` (kills itself with SIGSEGV at its third answer);
# by default it exits (code 0) after the last turn.
import os
import signal
import sys
import time

MODE = sys.argv[1]
MS = float(sys.argv[2]) / 1000.0
END = sys.argv[3] if len(sys.argv) > 3 else "exit"


def numbers():
    return [int(word) for word in sys.stdin.readline().split()]


def think():
    if MODE == "burn":
        # CPU time of this process, not wall time: the same work on a loaded machine.
        end = time.process_time() + MS
        x = 0
        while time.process_time() < end:
            for i in range(2000):
                x += i * i
    else:
        time.sleep(MS)


def main():
    print("READY", flush=True)
    turns, players, targets = numbers()
    numbers()
    for _ in range(turns):
        header = sys.stdin.readline().split()
        if not header:
            return
        turn = int(header[0])
        for _ in range(targets):
            numbers()
        numbers()
        if turn % 2 == 1:
            numbers()
        if END == "segv" and turn == 3:
            os.kill(os.getpid(), signal.SIGSEGV)
        think()
        actions = 5 if turn % 2 == 1 else 2
        print(" ".join(str(i % targets) for i in range(actions)), flush=True)
    if END == "linger":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            time.sleep(1)


main()
