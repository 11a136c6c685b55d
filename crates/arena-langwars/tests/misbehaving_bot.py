# A Lang Wars bot that misbehaves on purpose, for the process tests. Usage: MODE PIDDIR
# It records its pid (and its child's) in PIDDIR so the tests can check nothing is left running.
import os
import subprocess
import sys
import time

mode, piddir = sys.argv[1], sys.argv[2]


def note_pid(pid):
    open(os.path.join(piddir, "%d.pid" % pid), "w").close()


def say(text):
    sys.stdout.write(text)
    sys.stdout.flush()


note_pid(os.getpid())
if mode == "never_ready":
    time.sleep(1000)
if mode == "late_ready":
    time.sleep(7)
if mode == "child_holds_pipe":
    child = subprocess.Popen(["sleep", "1000"])  # inherits stdout and stderr
    note_pid(child.pid)
if mode == "banner":
    say("starting up, please wait\n")
if mode == "php":
    say("READY")
elif mode == "stray":
    say("READY\nloading tables...\n")
else:
    say("READY\n")

targets = None
while True:
    if targets is None:
        settings = sys.stdin.readline()
        if not settings:
            break
        targets = int(settings.split()[2])
        sys.stdin.readline()
    header = sys.stdin.readline()
    if not header:
        break
    turn = int(header.split()[0])
    slots = 5 if turn % 2 == 1 else 2
    move = " ".join(["1"] * slots)
    if mode == "early_answer":
        # Answers before reading the rest of its input, like the JavaScript samples.
        say(move + "\n")
    for _ in range(targets + (2 if turn % 2 == 1 else 1)):
        sys.stdin.readline()
    if mode == "early_answer":
        continue
    if mode == "hang" and turn == 3:
        time.sleep(1000)
    if mode == "crash" and turn == 2:
        sys.exit(3)
    if mode == "exit_early" and turn == 2:
        sys.exit(0)
    if mode == "flood_stderr":
        sys.stderr.write("x" * 2000000)
        sys.stderr.flush()
    if mode == "garbage":
        say("hello world\n")
    elif mode == "few":
        say("1\n")
    elif mode == "many":
        say(" ".join(["1"] * 9) + "\n")
    elif mode == "debug":
        say("thinking hard\n" + move + "\n")
    elif mode in ("unterminated", "php"):
        say(move)
    elif mode == "trailing":
        say(move + "   \r\n")
    else:
        say(move + "\n")

if mode == "spin_at_end":
    while True:
        pass
if mode == "abort_at_end":
    os.abort()
