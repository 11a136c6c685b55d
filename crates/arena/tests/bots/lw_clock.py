# A Lang Wars bot for the clock tests: before each answer it burns CPU (`burn MS`) or sleeps
# (`sleep MS`) for MS milliseconds, then plays like the starter bot.
import sys
import time

MODE = sys.argv[1]
MS = float(sys.argv[2]) / 1000.0


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
        think()
        actions = 5 if turn % 2 == 1 else 2
        print(" ".join(str(i % targets) for i in range(actions)), flush=True)


main()
