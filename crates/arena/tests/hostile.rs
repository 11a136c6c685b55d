//! The hostile-bot catalogue: bots that attack the machine, arena and each other, each played in a
//! real game through the `arena` command in the default sandbox. For every kind:
//! - the offender gets the rule's outcome (`Plays`: its attack failed and it played on; `Faults`: the
//!   fault of that kind at its first answer);
//! - every other bot's result and every answer it gave are exactly those of the same game without the
//!   attack (the offender playing plainly, or failing at its first answer the same way);
//! - no process of the sandbox's user is left, no cgroup of the run is left;
//! - nothing outside the bot's folder changed (a secret, another bot's program, a tournament journal,
//!   the host's /tmp and /root), the bot never printed `BREACH` (the marker of a successful attack),
//!   and arena's own output holds no escape character.
//!
//! Needs root, bubblewrap and cgroups (as CI has); without bwrap the catalogue says so and is skipped
//! only when `ARENA_SKIP_SANDBOX_TESTS` is set, so a broken sandbox never passes silently.

use arena_core::record::seat_stderr;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use arena_core::sandbox::DEFAULT_UIDS;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Game {
    LangWars,
    Spring,
    Coup,
}

#[derive(Clone, Copy, Debug)]
enum Expect {
    /// The attack fails; the bot plays on as if it had not tried.
    Plays,
    /// The bot is faulted at its first answer with this kind (as in the replay's JSON), or with one
    /// of several kinds separated by `|`.
    Faults(&'static str),
    /// The offender's own result may vary; every other bot is untouched.
    Any,
}

struct Case {
    name: &'static str,
    game: Game,
    expect: Expect,
    /// Shell run before the bot plays. `{ASK}` waits for the first question (after `READY` in Lang
    /// Wars); `{S}` is the outside folder, `{PORT}` a port the test listens on at 127.0.0.1,
    /// `{TESTPID}` the test process.
    body: &'static str,
}

const fn case(name: &'static str, game: Game, expect: Expect, body: &'static str) -> Case {
    Case {
        name,
        game,
        expect,
        body,
    }
}

use Expect::{Any, Faults, Plays};
use Game::{Coup, LangWars, Spring};

/// Every kind of attack. `BREACH` is printed (to stderr) only if an attack worked.
const CASES: &[Case] = &[
    // Processes, signals, resources.
    case("hang", LangWars, Faults("timeout"), "{ASK}; sleep 1000"),
    case("crash", LangWars, Faults("crashed"), "{ASK}; exit 1"),
    case(
        "segfault",
        LangWars,
        Faults("crashed"),
        "{ASK}; kill -SEGV $$",
    ),
    case(
        "memory balloon",
        LangWars,
        Faults("memory"),
        "{ASK}; exec python3 -c 'x = bytearray(1 << 30); x[::4096] = b\"y\" * len(x[::4096])'",
    ),
    case(
        "fork bomb",
        LangWars,
        // Which comes first is a race: the bomb's processes fill the bot's task limit so that its
        // own `sleep` cannot start (the shell exits: crashed), or `sleep` starts (timeout).
        Faults("timeout|crashed"),
        "{ASK}; b() { b | b & }; b 2>/dev/null; sleep 1000",
    ),
    case(
        "fork bomb is bounded",
        LangWars,
        Plays,
        "python3 -c 'import os,sys,time\nkids=[]\nfor i in range(200):\n  try: pid=os.fork()\n  except OSError: break\n  if pid==0:\n    time.sleep(30); os._exit(0)\n  kids.append(pid)\nif len(kids) > 64: print(\"BREACH tasks\", len(kids), file=sys.stderr)\nfor k in kids:\n  os.kill(k, 9); os.waitpid(k, 0)'",
    ),
    case(
        "threads bounded",
        LangWars,
        Plays,
        "python3 -c 'import threading,time\nn=0\ntry:\n  for i in range(500):\n    threading.Thread(target=time.sleep,args=(5,),daemon=True).start(); n+=1\nexcept Exception: pass\nimport sys\nif n > 64: print(\"BREACH threads\", n, file=sys.stderr)' ",
    ),
    case(
        "stop own group",
        LangWars,
        Faults("timeout"),
        "{ASK}; kill -STOP 0",
    ),
    case("stdout flood", LangWars, Any, "{ASK}; cat /dev/zero"),
    case(
        "huge line",
        LangWars,
        Any,
        "{ASK}; head -c 20000000 /dev/zero | tr '\\0' 1; echo; sleep 1000",
    ),
    case(
        "invalid utf-8",
        LangWars,
        Any,
        "{ASK}; while true; do printf '\\377\\376 1 2 3 4 5\\n'; read l; done",
    ),
    case(
        "stderr flood",
        LangWars,
        Plays,
        "head -c 50000000 /dev/zero >&2",
    ),
    case(
        "double fork",
        LangWars,
        Plays,
        "(sh -c 'sleep 1000' &) ; (python3 -c 'import os,time\nif os.fork(): os._exit(0)\nif os.fork(): os._exit(0)\ntime.sleep(1000)' &)",
    ),
    case(
        "setsid escape",
        LangWars,
        Plays,
        "setsid sh -c 'echo BREACH setsid >&2; sleep 1000' 2>/dev/null & \
         python3 -c 'import os\ntry:\n  os.setsid(); print(\"BREACH setsid\", file=__import__(\"sys\").stderr)\nexcept OSError: pass' ; \
         python3 -c 'import os\ntry:\n  os.setpgid(0, 0); print(\"BREACH setpgid\", file=__import__(\"sys\").stderr)\nexcept OSError: pass'",
    ),
    case(
        "kill everything",
        LangWars,
        Plays,
        "kill -9 -1 2>/dev/null; kill -STOP -1 2>/dev/null; true",
    ),
    case(
        "signal arena and the test",
        LangWars,
        Plays,
        "kill -9 {TESTPID} 2>/dev/null && echo BREACH >&2; pkill -STOP -x arena; pkill -9 -x arena; \
         kill -9 1 2>/dev/null && echo BREACH init >&2; true",
    ),
    case(
        "other processes in /proc",
        LangWars,
        Plays,
        "n=$(ls /proc | grep -c '^[0-9]'); [ \"$n\" -gt 8 ] && echo BREACH procs $n >&2; \
         [ -e /proc/{TESTPID} ] && echo BREACH test visible >&2; true",
    ),
    case(
        "file size limit",
        LangWars,
        Plays,
        // One byte written at 300 MB makes a sparse file: the limit is tested at once, without
        // writing 256 MB first (that took longer than the start timeout on a loaded CI runner).
        "dd if=/dev/zero of=big bs=1 count=1 seek=299999999 2>/dev/null; \
         s=$(stat -c %s big 2>/dev/null || echo 0); \
         [ \"$s\" -gt 268435456 ] && echo BREACH size $s >&2; rm -f big",
    ),
    case(
        "open files limit",
        LangWars,
        Plays,
        "python3 -c 'import sys\nfs=[]\ntry:\n  for i in range(5000): fs.append(open(\"/dev/null\"))\nexcept OSError: pass\nif len(fs) >= 1024: print(\"BREACH files\", len(fs), file=sys.stderr)'",
    ),
    case(
        "raise limits",
        LangWars,
        Plays,
        "(ulimit -n 100000 2>/dev/null && echo BREACH nofile >&2); (ulimit -f unlimited 2>/dev/null && echo BREACH fsize >&2); true",
    ),
    case(
        "priority",
        LangWars,
        Plays,
        "renice -n -10 $$ >/dev/null 2>&1 && echo BREACH renice >&2; true",
    ),
    case(
        "cgroup escape",
        LangWars,
        Plays,
        "echo $$ > /sys/fs/cgroup/pids/cgroup.procs 2>/dev/null && echo BREACH cgroup >&2; \
         echo $$ > /sys/fs/cgroup/cgroup.procs 2>/dev/null && echo BREACH cgroup2 >&2; true",
    ),
    // Files.
    case(
        "read shadow",
        LangWars,
        Plays,
        "cat /etc/shadow >/dev/null 2>&1 && echo BREACH shadow >&2; true",
    ),
    case(
        "read outside secret",
        LangWars,
        Plays,
        "cat {S}/secret.txt 2>/dev/null && echo BREACH secret >&2; ls {S} 2>/dev/null && echo BREACH ls >&2; true",
    ),
    case(
        "read other bot",
        LangWars,
        Plays,
        "cat {S}/innocent/bot.sh >/dev/null 2>&1 && echo BREACH read bot >&2; true",
    ),
    case(
        "overwrite other bot",
        LangWars,
        Plays,
        "echo 'exit 1' > {S}/innocent/bot.sh 2>/dev/null && echo BREACH write bot >&2; true",
    ),
    case(
        "write the journal",
        LangWars,
        Plays,
        "echo '{}' >> {S}/out/results.jsonl 2>/dev/null && echo BREACH journal >&2; true",
    ),
    case(
        "write the system",
        LangWars,
        Plays,
        "echo x >> /etc/passwd 2>/dev/null && echo BREACH etc >&2; touch /usr/bin/evil 2>/dev/null && echo BREACH usr >&2; \
         ln -s /etc/passwd p 2>/dev/null; echo x >> p 2>/dev/null && echo BREACH link >&2; true",
    ),
    case(
        "write home and tmp",
        LangWars,
        Plays,
        "mkdir -p /root/arena-hostile-evil 2>/dev/null && echo BREACH root >&2; \
         echo x > /tmp/arena-hostile-evil; echo x > \"$HOME/mine\" || echo BREACH own folder not writable >&2; true",
    ),
    case(
        "fill tmp",
        LangWars,
        Plays,
        "head -c 100000000 /dev/zero > /tmp/fill; rm -f /tmp/fill",
    ),
    case(
        "mount",
        LangWars,
        Plays,
        "mkdir -p /tmp/m; mount -t tmpfs none /tmp/m 2>/dev/null && echo BREACH mount >&2; true",
    ),
    case(
        "terminal",
        LangWars,
        Plays,
        "[ \"$(stat -L -c %t:%T /dev/tty 2>/dev/null)\" = 5:0 ] && echo BREACH tty >&2; \
         printf '\\033[2J\\033]0;pwned\\007' >&2; printf '\\033[2J' > /dev/tty 2>/dev/null; true",
    ),
    // Environment, descriptors, network.
    case(
        "environment",
        LangWars,
        Plays,
        "env | grep -q ARENA_TEST_SECRET && echo BREACH secret env >&2; \
         env | grep -v -E '^(PATH|HOME|LANG|TMPDIR|PWD|SHLVL|_|OLDPWD)=' | grep -q . && echo BREACH env >&2; \
         [ \"$HOME\" = \"$(pwd)\" ] || echo BREACH home >&2; true",
    ),
    case(
        "descriptors",
        LangWars,
        Plays,
        "for fd in 3 4 5 6 7 8 9; do [ -e /proc/$$/fd/$fd ] && echo BREACH fd $fd >&2; done; true",
    ),
    case(
        "connect out",
        LangWars,
        Plays,
        "python3 -c 'import socket\ntry:\n  socket.create_connection((\"1.1.1.1\", 53), timeout=1); print(\"BREACH net\", file=__import__(\"sys\").stderr)\nexcept OSError: pass'",
    ),
    case(
        "connect to the host",
        LangWars,
        Plays,
        "python3 -c 'import socket\ntry:\n  socket.create_connection((\"127.0.0.1\", {PORT}), timeout=1); print(\"BREACH host\", file=__import__(\"sys\").stderr)\nexcept OSError: pass'",
    ),
    case(
        "interfaces",
        LangWars,
        Plays,
        "grep -v -E '^ *(lo|Inter|face)' /proc/net/dev | grep -q . && echo BREACH interfaces >&2; true",
    ),
    // Spring Challenge 2021 (two bots, one pause-free stream each).
    case(
        "spring hang",
        Spring,
        Faults("timeout"),
        "{ASK}; sleep 1000",
    ),
    case("spring crash", Spring, Faults("crashed"), "{ASK}; exit 3"),
    case(
        "spring memory",
        Spring,
        Faults("memory"),
        "{ASK}; exec python3 -c 'x = bytearray(1 << 30); x[::4096] = b\"y\" * len(x[::4096])'",
    ),
    case(
        "spring kill everything",
        Spring,
        Plays,
        "kill -9 -1 2>/dev/null; cat {S}/secret.txt 2>/dev/null && echo BREACH >&2; true",
    ),
    // Coup: a new process per move, the history file shared by both players.
    case("coup hang", Coup, Faults("timeout"), "sleep 1000"),
    case("coup crash", Coup, Faults("crashed"), "exit 1"),
    case(
        "coup memory",
        Coup,
        Faults("memory"),
        "exec python3 -c 'x = bytearray(1 << 30); x[::4096] = b\"y\" * len(x[::4096])'",
    ),
    case(
        "coup fork bomb",
        Coup,
        // A race, as for the Lang Wars fork bomb: crashed when `sleep` cannot fork, else timeout.
        Faults("timeout|crashed"),
        "b() { b | b & }; b 2>/dev/null; sleep 1000",
    ),
    case(
        "coup lingering writer",
        Coup,
        Plays,
        "(sleep 0.3; echo X >> \"$HIST\"; echo BREACH lingered >&2) & ",
    ),
    case(
        "coup setsid writer",
        Coup,
        Plays,
        "setsid sh -c 'sleep 0.3; echo X >> \"$0\"' \"$HIST\" 2>/dev/null & true",
    ),
    case(
        "coup rewrites history",
        Coup,
        Any,
        "if [ -s \"$HIST\" ]; then printf 'Z' > \"$HIST\"; exit 0; fi",
    ),
    case(
        "coup escapes in history",
        Coup,
        Faults("forfeit"),
        "printf '\\033[2J\\033]0;x\\007' >> \"$HIST\"; exit 0",
    ),
    case(
        "coup signals",
        Coup,
        Plays,
        "kill -9 -1 2>/dev/null; kill -9 {TESTPID} 2>/dev/null && echo BREACH >&2; true",
    ),
    // A call inherits the bot's filter from the helper, which installed it on itself, instead of
    // installing it: it must still be filtered, unprivileged and in its group, and unable to stop
    // the helper (and every later call with it). Only inside the sandbox (hostname `arena`): run
    // unconfined as root, stopping every task would stop the machine.
    case(
        "coup reaches for the helper",
        Coup,
        Plays,
        "grep -q '^Seccomp:[[:space:]]*2' /proc/self/status || echo BREACH no filter >&2; \
         grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status || echo BREACH privileges >&2; \
         grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status || echo BREACH capabilities >&2; \
         python3 -c 'import os,sys\nfor f in (os.setsid, lambda: os.setpgid(0, 0)):\n  try:\n    f(); print(\"BREACH group\", file=sys.stderr)\n  except OSError: pass'; \
         if [ \"$(hostname)\" = arena ]; then for t in /proc/[0-9]*/task/[0-9]*; do n=${t##*/}; \
           if [ \"$n\" != $$ ] && kill -STOP \"$n\" 2>/dev/null; then echo BREACH stopped $n >&2; fi; done; fi; true",
    ),
    case(
        "coup reads and writes outside",
        Coup,
        Plays,
        "cat {S}/secret.txt 2>/dev/null && echo BREACH >&2; echo '{}' >> {S}/out/results.jsonl 2>/dev/null && echo BREACH >&2; \
         echo x > {S}/innocent/bot.sh 2>/dev/null && echo BREACH >&2; true",
    ),
    case(
        "coup environment and descriptors",
        Coup,
        Plays,
        "env | grep -q ARENA_TEST_SECRET && echo BREACH >&2; for fd in 3 4 5 6 7 8 9; do [ -e /proc/$$/fd/$fd ] && echo BREACH fd $fd >&2; done; true",
    ),
    case(
        "coup network",
        Coup,
        Plays,
        "python3 -c 'import socket\ntry:\n  socket.create_connection((\"127.0.0.1\", {PORT}), timeout=1); print(\"BREACH\", file=__import__(\"sys\").stderr)\nexcept OSError: pass'",
    ),
    case(
        "coup double fork",
        Coup,
        Plays,
        "(sh -c 'sleep 1000' &) ; true",
    ),
    case(
        "coup stdout flood",
        Coup,
        Any,
        "head -c 100000000 /dev/zero",
    ),
    // The kernel's state shared between users' processes, and its surface no bot needs.
    case(
        "keyring",
        LangWars,
        Plays,
        r#"python3 -c "
import ctypes, platform, sys
libc = ctypes.CDLL(None, use_errno=True)
add_key, request_key, keyctl = (217, 218, 219) if platform.machine() == 'aarch64' else (248, 249, 250)
n = ctypes.c_long
if libc.syscall(n(add_key), b'user', b'arena-hostile', b'left by a bot', n(13), n(-4)) >= 0:
    print('BREACH key added', file=sys.stderr)
if libc.syscall(n(keyctl), n(10), n(-4), b'user', b'arena-hostile', n(0)) >= 0:
    print('BREACH a key of another game or run found', file=sys.stderr)
if libc.syscall(n(request_key), b'user', b'arena-hostile', None, n(0)) >= 0:
    print('BREACH a key requested', file=sys.stderr)
if libc.syscall(n(keyctl), n(0), n(-4), n(1)) >= 0:
    print('BREACH the user keyring reached', file=sys.stderr)
""#,
    ),
    case(
        "user namespace",
        LangWars,
        Plays,
        r#"unshare -U true 2>/dev/null && echo BREACH unshare command >&2
python3 -c "
import ctypes, os, platform, sys
libc = ctypes.CDLL(None, use_errno=True)
n = ctypes.c_long
NEWUSER = 0x10000000
if libc.unshare(NEWUSER) == 0: print('BREACH unshare', file=sys.stderr)
clone = 220 if platform.machine() == 'aarch64' else 56
pid = libc.syscall(n(clone), n(NEWUSER | 17), n(0), n(0), n(0), n(0))
if pid == 0: os._exit(0)
if pid > 0:
    print('BREACH clone', file=sys.stderr); os.waitpid(pid, 0)
libc.syscall(n(435), None, n(0))
if ctypes.get_errno() != 38: print('BREACH clone3 not refused', ctypes.get_errno(), file=sys.stderr)
if os.fork() == 0: os._exit(0)
os.wait()
""#,
    ),
    case(
        "io_uring",
        LangWars,
        Plays,
        r#"python3 -c "
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
if libc.syscall(ctypes.c_long(425), ctypes.c_long(8), params) >= 0: print('BREACH io_uring', file=sys.stderr)
""#,
    ),
    // The bot's folder is a bounded disk of its own (`--disk-mib 64` here), in memory: writing past
    // it is ENOSPC for this bot only, and the bot plays on.
    case(
        "fill the folder",
        LangWars,
        Plays,
        r#"[ "$(stat -f -c %T .)" = tmpfs ] || echo BREACH the folder is on the host disk >&2
for i in 1 2 3; do head -c 30000000 /dev/zero > fill$i 2>>/tmp/fill.err; done
grep -q 'No space left' /tmp/fill.err || echo BREACH no ENOSPC >&2
[ "$(du -sb . | cut -f1)" -gt 67108864 ] && echo BREACH wrote $(du -sb .) >&2
rm -f fill* /tmp/fill.err
head -c 80000000 /dev/zero > /tmp/fill 2>/dev/null && echo BREACH tmp unbounded >&2
rm -f /tmp/fill"#,
    ),
];

static SERIAL: Mutex<()> = Mutex::new(());

/// The start of every sandbox test: one at a time in this binary (they count the sandbox's
/// processes), and `None` (skip) only when bwrap is missing and `ARENA_SKIP_SANDBOX_TESTS` says
/// so, so that a broken sandbox never passes silently.
fn sandbox_test() -> Option<std::sync::MutexGuard<'static, ()>> {
    let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if sandbox_missing().is_some() && std::env::var_os("ARENA_SKIP_SANDBOX_TESTS").is_some() {
        return None;
    }
    Some(serial)
}

fn arena() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_arena"))
}

fn sandbox_missing() -> Option<String> {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("bwrap").is_file()));
    (!found).then(|| "bubblewrap (bwrap) is not installed".to_string())
}

/// This test process adopts every orphan of its descendants (`PR_SET_CHILD_SUBREAPER`): a bot that
/// escapes its parent, or a sandbox whose arena was killed, stays in this process's tree instead of
/// moving to the machine's init, so that looking only at our own tree still sees it.
fn adopt_orphans() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument and touches no memory.
        let done = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
        assert_eq!(done, 0, "prctl(PR_SET_CHILD_SUBREAPER)");
    });
}

/// Every process of the machine as (pid, parent, uid, "name state"), from /proc.
fn process_table() -> Vec<(i32, i32, u32, String)> {
    let mut table = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .unwrap_or("")
                .trim()
                .to_string()
        };
        let uid = field("Uid:")
            .split_whitespace()
            .next()
            .and_then(|u| u.parse().ok())
            .unwrap_or(u32::MAX);
        let parent = field("PPid:").parse().unwrap_or(0);
        table.push((
            pid,
            parent,
            uid,
            format!("{} {}", field("Name:"), field("State:")),
        ));
    }
    table
}

/// Processes of the sandbox's users (the default range) that descend from this test process, with
/// their state letter. Only our own tree counts: the machine may run other sandboxes (another run of
/// this suite, a contest server) as users of the range, and they are none of this test's business.
fn sandbox_processes() -> BTreeSet<(i32, String)> {
    adopt_orphans();
    let table = process_table();
    let mut ours = std::collections::HashSet::from([std::process::id() as i32]);
    // Parents before children is not guaranteed by pid order (pids wrap): grow to a fixed point.
    loop {
        let before = ours.len();
        for (pid, parent, _, _) in &table {
            if ours.contains(parent) {
                ours.insert(*pid);
            }
        }
        if ours.len() == before {
            break;
        }
    }
    reap_adopted(&table);
    table
        .into_iter()
        .filter(|(pid, _, uid, _)| DEFAULT_UIDS.contains(*uid) && ours.contains(pid))
        .map(|(pid, _, _, name)| (pid, name))
        .collect()
}

/// Reaps the adopted orphans that have ended (the tests wait for the children they start
/// themselves, and run one at a time, so a zombie child of ours is an orphan we adopted).
fn reap_adopted(table: &[(i32, i32, u32, String)]) {
    let me = std::process::id() as i32;
    for (pid, parent, _, name) in table {
        if *parent == me && name.ends_with("Z (zombie)") {
            let mut status = 0;
            // SAFETY: waitpid on one pid that is our zombie child; no memory but `status`.
            unsafe { libc::waitpid(*pid, &mut status, libc::WNOHANG) };
        }
    }
}

/// The sandbox user's processes that were not there `before`, after giving them up to 3 s to go
/// (a killed process takes a moment to be reaped).
fn processes_left_since(before: &BTreeSet<(i32, String)>) -> Vec<(i32, String)> {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(3);
    loop {
        let left: Vec<_> = sandbox_processes().difference(before).cloned().collect();
        if left.is_empty() || std::time::Instant::now() >= until {
            return left;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn cgroups_of(pid: u32) -> Vec<PathBuf> {
    let mut left = Vec::new();
    for controller in ["memory", "pids", "cpuset"] {
        let mut stack = vec![PathBuf::from("/sys/fs/cgroup").join(controller)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                if entry.path().is_dir() {
                    if entry
                        .file_name()
                        .to_string_lossy()
                        .starts_with(&format!("arena-{pid}-"))
                    {
                        left.push(entry.path());
                    }
                    if stack.len() < 64 {
                        stack.push(entry.path());
                    }
                }
            }
        }
    }
    left
}

fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    files.sort();
    files
}

struct World {
    dir: tempfile::TempDir,
    port: u16,
    _listener: std::net::TcpListener,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().expect("temp dir");
        let s = dir.path();
        std::fs::create_dir_all(s.join("innocent")).expect("dir");
        std::fs::create_dir_all(s.join("out")).expect("dir");
        std::fs::create_dir_all(s.join("bots")).expect("dir");
        std::fs::write(s.join("secret.txt"), "the organiser's secret\n").expect("secret");
        std::fs::write(s.join("out/results.jsonl"), "{\"game\":0}\n").expect("journal");
        // The innocent plays the built-in random bot over the real protocol.
        std::fs::write(
            s.join("innocent/bot.sh"),
            "#!/bin/sh\nARENA=\"$1\"; GAME=\"$2\"; shift 2\nexec \"$ARENA\" bot \"$GAME\" random \"$@\"\n",
        )
        .expect("innocent");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
        let port = listener.local_addr().expect("addr").port();
        World {
            dir,
            port,
            _listener: listener,
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn script(&self, name: &str, game: Game, body: &str) -> PathBuf {
        let ask = match game {
            LangWars => "echo READY; read line",
            Spring => "read line",
            Coup => "",
        };
        let body = body
            .replace("{ASK}", ask)
            .replace("{S}", &self.root().to_string_lossy())
            .replace("{PORT}", &self.port.to_string())
            .replace("{TESTPID}", &std::process::id().to_string());
        let play = match game {
            LangWars => "exec \"$ARENA\" bot langwars2 random 7",
            Spring => "exec \"$ARENA\" bot spring2021 random",
            Coup => "exec \"$ARENA\" bot coup random \"$@\"",
        };
        let text = format!("#!/bin/sh\nARENA=\"$1\"; shift\nHIST=\"$1\"\n{body}\n{play}\n");
        let file_name: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let path = self.root().join("bots").join(format!("{file_name}.sh"));
        std::fs::write(&path, text).expect("script");
        path
    }
}

/// What a game gave: the replay and arena's output.
struct Played {
    replay: serde_json::Value,
    output: Vec<u8>,
    arena_pid: u32,
}

fn play(world: &World, game: Game, offender: &Path) -> Played {
    let arena = arena();
    let a = arena.to_string_lossy();
    let innocent = world.root().join("innocent/bot.sh");
    let off = format!("offender=sh {} {a}", offender.display());
    let game_id = match game {
        LangWars => "langwars2",
        Spring => "spring2021",
        Coup => "coup",
    };
    let inn = |label: &str| format!("{label}=sh {} {a} {game_id}", innocent.display());
    let replay = world.root().join("replay.json");
    let mut args: Vec<String> = match game {
        LangWars => vec![
            "langwars2".into(),
            "--bot".into(),
            off,
            "--bot".into(),
            inn("innocent"),
            "--bot".into(),
            format!("greedy={a} bot langwars2 greedy"),
            "--bot".into(),
            "random".into(),
            // 3 s an answer, as Spring's below: the memory balloon (python3's start, then pages
            // touched up to the limit) timed out at 1 s in the fresh-clone run's second,
            // concurrent run of this test.
            "--time-scale".into(),
            "3".into(),
        ],
        Spring => vec![
            "spring2021".into(),
            "--bot".into(),
            off,
            "--bot".into(),
            inn("innocent"),
            "--time-policy".into(),
            "strict".into(),
            // 3 s for the first answer: a balloon (python3's start, then 160 MiB touched) must
            // reach the memory limit before its time limit even when the machine is loaded (it
            // timed out at 1 s beside two other test runs).
            "--time-scale".into(),
            "3".into(),
        ],
        Coup => vec![
            "coup".into(),
            "--bot".into(),
            off,
            "--bot".into(),
            inn("innocent"),
            "--call-limit-ms".into(),
            "1500".into(),
        ],
    };
    args.extend([
        // A small memory limit: a balloon reaches it long before its time limit.
        "--memory-mib".into(),
        "160".into(),
        // A disk below it: a bot's files count in its memory (see "fill the folder").
        "--disk-mib".into(),
        "64".into(),
        "--seed".into(),
        "11".into(),
        "--replay".into(),
        replay.to_string_lossy().into_owned(),
    ]);
    // arena is started with a stray inherited descriptor (7) and a secret in its environment: neither
    // may reach a bot.
    let child = Command::new("sh")
        .arg("-c")
        .arg("exec 7</etc/hostname; exec \"$0\" play \"$@\"")
        .arg(&arena)
        .args(&args)
        .env("ARENA_TEST_SECRET", "hunter2")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("arena starts");
    let arena_pid = child.id();
    let out = child.wait_with_output().expect("arena runs");
    assert!(
        out.status.success(),
        "arena failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replay = serde_json::from_slice(&std::fs::read(&replay).expect("replay")).expect("json");
    let mut output = out.stdout;
    output.extend_from_slice(&out.stderr);
    Played {
        replay,
        output,
        arena_pid,
    }
}

/// The innocents' side of a game: outcome, and every answer of every other seat.
fn innocents(replay: &serde_json::Value) -> (serde_json::Value, Vec<(u64, serde_json::Value)>) {
    let steps = replay["steps"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .filter(|s| s["player"].as_u64() != Some(0))
                .map(|s| (s["player"].as_u64().unwrap_or(99), s["output"].clone()))
                .collect()
        })
        .unwrap_or_default();
    (replay["outcome"].clone(), steps)
}

fn fault_kinds(replay: &serde_json::Value, seat: usize) -> Vec<String> {
    replay["players"][seat]["faults"]
        .as_array()
        .map(|faults| {
            faults
                .iter()
                .map(|f| f["fault"]["kind"].as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn hostile_bots_are_contained_and_change_nobody_elses_result() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(missing) = sandbox_missing() {
        if std::env::var_os("ARENA_SKIP_SANDBOX_TESTS").is_some() {
            eprintln!("skipped: {missing}");
            return;
        }
        panic!(
            "{missing}: install it (apt-get install bubblewrap) or set ARENA_SKIP_SANDBOX_TESTS"
        );
    }
    assert!(CASES.len() >= 40, "the catalogue keeps at least 40 kinds");
    let world = World::new();
    let before_processes = sandbox_processes();
    let outside = snapshot(world.root());
    let mut baselines: HashMap<(Game, bool), serde_json::Value> = HashMap::new();
    let mut failures = Vec::new();
    for case in CASES {
        let crash_first = matches!(case.expect, Faults(_));
        baselines
            .entry((case.game, crash_first))
            .or_insert_with(|| {
                let body = if crash_first { "{ASK}; exit 1" } else { "true" };
                let script = world.script("baseline", case.game, body);
                play(&world, case.game, &script).replay
            });
        let script = world.script(case.name, case.game, case.body);
        let played = play(&world, case.game, &script);
        let replay = &played.replay;
        let mut problems = Vec::new();
        let stderr = seat_stderr(replay, 0);
        if stderr.contains("BREACH") {
            problems.push(format!(
                "the attack worked: {}",
                stderr
                    .lines()
                    .filter(|l| l.contains("BREACH"))
                    .collect::<Vec<_>>()
                    .join(" | ")
            ));
        }
        let kinds = fault_kinds(replay, 0);
        match case.expect {
            Plays if !kinds.is_empty() => problems.push(format!("offender faulted: {kinds:?}")),
            Faults(kind)
                if !kinds
                    .first()
                    .is_some_and(|first| kind.split('|').any(|k| k == first)) =>
            {
                problems.push(format!("offender's faults {kinds:?}, expected {kind}"))
            }
            _ => {}
        }
        let seats = replay["players"].as_array().map_or(0, Vec::len);
        for seat in 1..seats {
            let faults = fault_kinds(replay, seat);
            if !faults.is_empty() {
                problems.push(format!("innocent seat {seat} faulted: {faults:?}"));
            }
        }
        if !matches!(case.expect, Any) {
            let baseline = &baselines[&(case.game, crash_first)];
            if innocents(replay) != innocents(baseline) {
                problems.push("the others' answers or the outcome differ from the same game without the attack".into());
            }
        }
        // Nothing is left behind.
        let new = processes_left_since(&before_processes);
        if !new.is_empty() {
            problems.push(format!("processes left: {new:?}"));
        }
        let cgroups = cgroups_of(played.arena_pid);
        if !cgroups.is_empty() {
            problems.push(format!("cgroups left: {cgroups:?}"));
        }
        // Nothing outside the bot's folder changed.
        let now: Vec<_> = snapshot(world.root())
            .into_iter()
            .filter(|(p, _)| {
                !p.starts_with(world.root().join("bots")) && !p.ends_with("replay.json")
            })
            .collect();
        let was: Vec<_> = outside
            .iter()
            .filter(|(p, _)| !p.starts_with(world.root().join("bots")))
            .cloned()
            .collect();
        if now != was {
            problems.push("files outside the bot's folder changed".into());
        }
        for path in [
            "/tmp/arena-hostile-evil",
            "/root/arena-hostile-evil",
            "/usr/bin/evil",
        ] {
            if Path::new(path).exists() {
                let _ = std::fs::remove_file(path);
                let _ = std::fs::remove_dir_all(path);
                problems.push(format!("{path} was made on the host"));
            }
        }
        if played.output.contains(&0x1b) {
            problems.push("arena's output holds an escape character from a bot".into());
        }
        if !problems.is_empty() {
            failures.push(format!("{}: {}", case.name, problems.join("; ")));
        }
    }
    // No bot's user holds a key: the kernel keeps a user's keys after all its processes end.
    let key_users = std::fs::read_to_string("/proc/key-users").unwrap_or_default();
    for line in key_users.lines() {
        let uid = line
            .split(':')
            .next()
            .and_then(|uid| uid.trim().parse().ok());
        if uid.is_some_and(|uid| DEFAULT_UIDS.contains(uid)) {
            failures.push(format!("a bot's user holds keys: {line}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} kinds not contained:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

/// `kill -9` of arena in the middle of a game, while one bot thinks and the others are frozen (Lang
/// Wars) or while a call runs (Coup): every bot process dies with it, frozen or not.
#[test]
fn bots_die_with_arena() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    let before = sandbox_processes();
    let arena = arena();
    let a = arena.to_string_lossy().into_owned();
    for (game, body) in [(LangWars, "{ASK}; sleep 1000"), (Coup, "sleep 1000")] {
        let script = world.script("thinker", game, body);
        let bot = format!("sh {} {a}", script.display());
        let mut command = Command::new(&arena);
        command.arg("play");
        match game {
            LangWars => {
                command.args(["langwars2", "--bot", &bot]);
                let innocent = world.root().join("innocent/bot.sh");
                for _ in 0..3 {
                    command.args(["--bot", &format!("sh {} {a} langwars2", innocent.display())]);
                }
                command.args(["--time-scale", "20"]);
            }
            _ => {
                command.args(["coup", "--bot", &bot, "--bot", "random"]);
            }
        }
        let mut child = command
            .arg("--replay")
            .arg(world.root().join("killed.json"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("arena starts");
        // Wait until the bots run, then kill arena outright.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while sandbox_processes().difference(&before).count() < 2
            && std::time::Instant::now() < until
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        let running = sandbox_processes().difference(&before).count();
        assert!(running >= 2, "{game:?}: the bots did not start");
        child.kill().expect("kill -9 arena");
        let _ = child.wait();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut left: Vec<_> = sandbox_processes().difference(&before).cloned().collect();
        while !left.is_empty() && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(50));
            left = sandbox_processes().difference(&before).cloned().collect();
        }
        assert!(left.is_empty(), "{game:?}: left after arena died: {left:?}");
    }
}

/// A submission's build step is the stranger's code as much as its bot: `arena.toml`'s `build` runs
/// in the sandbox. The step attacks (reads and writes outside its folder, the network, the test
/// process, the environment, a daemon left behind), then the bot is built and plays a clean game.
#[test]
fn hostile_build_steps_are_contained() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    let cache = tempfile::tempdir().expect("cache dir");
    let before_processes = sandbox_processes();
    let outside = snapshot(world.root());
    let root = world.root().to_string_lossy().into_owned();
    let attacks = [
        ("cat {S}/secret.txt", "read the organiser's file"),
        ("echo x >> {S}/secret.txt", "wrote the organiser's file"),
        ("echo '{}' >> {S}/out/results.jsonl", "wrote a journal"),
        ("cat {S}/innocent/bot.sh", "read another bot"),
        ("mkdir /root/arena-hostile-evil", "wrote into /root"),
        ("touch /usr/bin/evil", "wrote into the system"),
        ("ls /root/.cargo", "saw the organiser's home"),
        ("kill -0 {TESTPID}", "could signal a host process"),
        (
            "env | grep -q -e CARGO -e ARENA_TEST_SECRET",
            "inherited the environment",
        ),
        (
            "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {PORT}), 2)\"",
            "reached the network",
        ),
    ];
    let mut script = String::from("exec 2>&1\n");
    for (attack, what) in attacks {
        let attack = attack
            .replace("{S}", &root)
            .replace("{PORT}", &world.port.to_string())
            .replace("{TESTPID}", &std::process::id().to_string());
        script.push_str(&format!(
            "if {{ {attack}; }} >/dev/null 2>&1; then echo \"BREACH: {what}\"; fi\n"
        ));
    }
    // The host's /tmp is not the sandbox's; a daemon left behind dies with the step.
    script.push_str(
        "mkdir /tmp/arena-hostile-evil\n(sleep 1000 &)\nnohup sleep 1000 >/dev/null 2>&1 &\n",
    );
    script.push_str("echo build done\n");
    let bot = world.root().join("bots/evil-build");
    std::fs::create_dir_all(&bot).expect("bot dir");
    std::fs::write(bot.join("evil.sh"), script).expect("script");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../arena-langwars/starters/bot.py"),
        bot.join("bot.py"),
    )
    .expect("starter");
    std::fs::write(
        bot.join("arena.toml"),
        "build = \"sh evil.sh\"\nrun = \"python3 bot.py\"\n",
    )
    .expect("manifest");
    let replay = world.root().join("bots/replay.json");
    let output = Command::new(arena())
        .args(["play", "langwars2", "--seed", "5", "--bot"])
        .arg(&bot)
        .args([
            "--bot", "random", "--bot", "greedy", "--bot", "random", "--replay",
        ])
        .arg(&replay)
        .env("ARENA_CACHE_DIR", cache.path())
        .env("ARENA_TEST_SECRET", "hunter2")
        .output()
        .expect("arena runs");
    let said = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{said}");
    assert!(said.contains("built"), "the build ran: {said}");
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&replay).expect("replay")).expect("json");
    assert!(
        record["players"][0].get("faults").is_none(),
        "the bot built by the hostile step plays cleanly: {}",
        record["players"][0]
    );
    let logs: Vec<String> = std::fs::read_dir(cache.path().join("builds"))
        .expect("cache")
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.path().join(".arena/build.log")).ok())
        .collect();
    assert_eq!(logs.len(), 1, "one build, one log");
    assert!(
        logs[0].contains("build done"),
        "the whole step ran: {}",
        logs[0]
    );
    assert!(
        !logs[0].contains("BREACH"),
        "an attack worked:\n{}",
        logs[0]
    );
    assert!(!logs[0].contains("hunter2"));
    // Nothing is left behind, nothing outside the bot's folder changed.
    let new = processes_left_since(&before_processes);
    assert!(new.is_empty(), "processes left by the build: {new:?}");
    let unchanged = |files: Vec<(PathBuf, Vec<u8>)>| -> Vec<(PathBuf, Vec<u8>)> {
        files
            .into_iter()
            .filter(|(p, _)| !p.starts_with(world.root().join("bots")))
            .collect()
    };
    assert!(
        unchanged(snapshot(world.root())) == unchanged(outside),
        "files outside changed"
    );
    for path in [
        "/tmp/arena-hostile-evil",
        "/root/arena-hostile-evil",
        "/usr/bin/evil",
    ] {
        assert!(!Path::new(path).exists(), "{path} was made on the host");
    }
}

/// A build step that never ends, or that balloons, is stopped by the build's limits; nothing of it
/// is left and the message says which limit.
#[test]
fn build_steps_that_hang_or_balloon_are_stopped() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    let cache = tempfile::tempdir().expect("cache dir");
    let before_processes = sandbox_processes();
    for (name, build, timeout, expect) in [
        (
            "hang",
            "setsid sleep 1000 & sleep 1000",
            2,
            "did not finish within 2 s",
        ),
        (
            "balloon",
            "python3 -c 'x = bytearray(3 << 30); x[::4096] = b\"y\" * len(x[::4096])'",
            120,
            "ran out of memory",
        ),
    ] {
        let bot = world.root().join("bots").join(name);
        std::fs::create_dir_all(&bot).expect("bot dir");
        std::fs::write(
            bot.join("arena.toml"),
            format!("build = {build:?}\nrun = \"true\"\nbuild_timeout = {timeout}\n"),
        )
        .expect("manifest");
        let output = Command::new(arena())
            .args(["play", "langwars2", "--bot"])
            .arg(&bot)
            .args(["--bot", "random", "--bot", "random", "--bot", "random"])
            .env("ARENA_CACHE_DIR", cache.path())
            .output()
            .expect("arena runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{name}: {stderr}");
        assert!(stderr.contains(expect), "{name}: {stderr}");
        let new = processes_left_since(&before_processes);
        assert!(new.is_empty(), "{name}: processes left: {new:?}");
    }
}

/// What the bot labelled `offender` wrote on stderr in game `game` of the tournament in `out`, as
/// its replay keeps it.
fn offender_stderr(out: &Path, game: usize) -> String {
    offender_stderr_of(out, game, "offender")
}

/// A tournament keeps each bot's sandbox between its games (a pool per worker): nothing a game
/// leaves in it reaches the next one. The bot plants everything it can (files in its folder, /tmp
/// and /dev/shm, System V shared memory, a process, a POSIX message queue) and reports, at the start
/// of each game, whatever it finds from the one before.
#[test]
fn a_reused_sandbox_carries_nothing_between_games() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    let before_processes = sandbox_processes();
    // The bot is started by a thread of the helper already under the bot's filter, and made a
    // group leader by the helper's main thread before its exec: it must lead its group, be
    // filtered, unprivileged, and unable to leave the group.
    let body = r#"
echo "pid $$" >&2
grep -q '^Seccomp:[[:space:]]*2' /proc/self/status || echo "BREACH: no filter" >&2
grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status || echo "BREACH: privileges" >&2
grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status || echo "BREACH: capabilities" >&2
python3 -c "
import os, sys
if os.getpgid(os.getppid()) != os.getppid(): print('BREACH: not leading its group', file=sys.stderr)
for leave in (os.setsid, lambda: os.setpgid(0, 0)):
    try:
        leave(); print('BREACH: left its group', file=sys.stderr)
    except OSError: pass
"
for f in .left /tmp/left /dev/shm/left; do [ -e "$f" ] && echo "BREACH: $f was left" >&2; done
grep -l "77[7]7" /proc/[0-9]*/cmdline >/dev/null 2>&1 && echo "BREACH: a process was left" >&2
python3 -c "
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.shmget(4242, 0, 0) != -1: print('BREACH: shared memory was left', file=sys.stderr)
if libc.shmget(4242, 4096, 0o1600) != -1: print('planted shm', file=sys.stderr)
rt = ctypes.CDLL('librt.so.1', use_errno=True)
rt.mq_open.restype = ctypes.c_int
if rt.mq_open(b'/arena-left', 0o102, 0o600, None) != -1: print('BREACH: a message queue opened', file=sys.stderr)
"
touch .left && echo "planted folder" >&2
touch /tmp/left && echo "planted tmp" >&2
touch /dev/shm/left 2>/dev/null
(sleep 7777 &)
"#;
    let script = world.script("leaves state", LangWars, body);
    let arena = arena();
    let a = arena.to_string_lossy().into_owned();
    let out = world.root().join("bots/tournament");
    let output = Command::new(&arena)
        .args([
            "tournament",
            "langwars2",
            "--jobs",
            "1",
            "--games",
            "6",
            "--seed",
            "3",
        ])
        .args(["--bot", &format!("offender=sh {} {a}", script.display())])
        .args(["--bot", "random", "--bot", "greedy", "--bot", "random"])
        .arg("--out")
        .arg(&out)
        .output()
        .expect("arena runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut pids = Vec::new();
    for game in 0..6 {
        let stderr = offender_stderr(&out, game);
        assert!(!stderr.contains("BREACH"), "game {game}: {stderr}");
        for planted in ["planted shm", "planted folder", "planted tmp"] {
            assert!(
                stderr.contains(planted),
                "game {game} could not plant: {stderr}"
            );
        }
        pids.extend(
            stderr
                .lines()
                .filter_map(|line| line.strip_prefix("pid "))
                .filter_map(|pid| pid.trim().parse::<u32>().ok()),
        );
    }
    // The same sandbox each time: its PID namespace numbers on (a new one starts again low).
    assert_eq!(pids.len(), 6, "{pids:?}");
    assert!(pids.windows(2).all(|w| w[1] > w[0]), "not reused: {pids:?}");
    let new = processes_left_since(&before_processes);
    assert!(new.is_empty(), "processes left: {new:?}");
}

/// A Coup tournament keeps each bot's sandbox between its games too (a process per call, in a
/// sandbox kept by the worker's pool): what a call leaves in its folder, /tmp, /dev/shm and the
/// calls folder beside its history file stays for the game's later calls (the original allowed
/// state between calls) and never reaches the next game, and no process outlives its call. Each
/// call stores the history it saw in what it plants; a later call that finds a planted history
/// that is not the start of its own found another game's.
#[test]
fn a_reused_coup_sandbox_carries_nothing_between_games() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    let before_processes = sandbox_processes();
    let body = r#"
echo "pid $$" >&2
seen=$(cat "$HIST")
calls=$(dirname "$HIST")
for f in .left /tmp/left /dev/shm/left "$calls/left"; do
  if [ -e "$f" ]; then
    case "$seen" in "$(cat "$f")"*) echo "kept $f" >&2 ;; *) echo "BREACH: $f was left" >&2 ;; esac
  fi
done
grep -l "77[7]7" /proc/[0-9]*/cmdline >/dev/null 2>&1 && echo "BREACH: a process was left" >&2
for f in .left /tmp/left /dev/shm/left "$calls/left"; do printf '%s' "$seen" 2>/dev/null > "$f"; done
(sleep 7777 &)
"#;
    let script = world.script("coup leaves state", Coup, body);
    let arena = arena();
    let a = arena.to_string_lossy().into_owned();
    let out = world.root().join("bots/coup-tournament");
    let output = Command::new(&arena)
        .args(["tournament", "coup", "--jobs", "1", "--games", "6"])
        .args(["--seed", "3"])
        .args(["--bot", &format!("offender=sh {} {a}", script.display())])
        .args(["--bot", "calculator"])
        .arg("--out")
        .arg(&out)
        .output()
        .expect("arena runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut first_pids = Vec::new();
    for game in 0..6 {
        let stderr = offender_stderr(&out, game);
        assert!(!stderr.contains("BREACH"), "game {game}: {stderr}");
        // Its state was kept between the calls of the game, in every place it could plant
        // (/dev/shm is not writable for it).
        for kept in [".left", "/tmp/left", "/calls/left"] {
            assert!(
                stderr
                    .lines()
                    .any(|line| line.starts_with("kept") && line.ends_with(kept)),
                "game {game}: nothing kept in {kept}: {stderr}"
            );
        }
        first_pids.extend(
            stderr
                .lines()
                .find_map(|line| line.strip_prefix("pid "))
                .and_then(|pid| pid.trim().parse::<u32>().ok()),
        );
    }
    // The same sandbox each game: its PID namespace numbers on (a new one starts again low).
    assert_eq!(first_pids.len(), 6, "{first_pids:?}");
    assert!(
        first_pids.windows(2).all(|w| w[1] > w[0]),
        "not reused: {first_pids:?}"
    );
    let new = processes_left_since(&before_processes);
    assert!(new.is_empty(), "processes left: {new:?}");
}

/// Per-user kernel limits are per bot: a bot that takes every inotify instance its user may have
/// (`fs.inotify.max_user_instances`) and holds them through the game leaves another bot of the same
/// game its own, at every turn; the other bots' answers and the outcome are those of the game without
/// the hog.
#[test]
fn a_bot_exhausting_a_per_user_limit_changes_no_other_bot() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    let before = sandbox_processes();
    // The instances are not close-on-exec: the bot the hog becomes keeps them all game.
    let hog = world.script(
        "inotify hog",
        LangWars,
        r#"exec python3 -c "
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
held = []
while len(held) < 4096:
    fd = libc.inotify_init()
    if fd < 0: break
    held.append(fd)
print('held', len(held), file=sys.stderr)
os.execv(sys.argv[1], sys.argv[1:])
" "$ARENA" bot langwars2 random 7"#,
    );
    let plain = world.script("plain", LangWars, "true");
    // The checker relays the built-in bot and makes an inotify instance at every question.
    let checker = world.script(
        "inotify checker",
        LangWars,
        r#"exec python3 -c "
import ctypes, os, subprocess, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
bot = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
def answers():
    while True:
        data = os.read(bot.stdout.fileno(), 65536)
        if not data: break
        os.write(1, data)
threading.Thread(target=answers, daemon=True).start()
checks = 0
while True:
    data = os.read(0, 65536)
    if not data: break
    fd = libc.inotify_init()
    if fd < 0:
        print('BREACH no inotify instance, errno', ctypes.get_errno(), file=sys.stderr)
    else:
        os.close(fd); checks += 1
    bot.stdin.write(data)
print('inotify checks', checks, file=sys.stderr)
bot.stdin.close(); bot.wait()
" "$ARENA" bot langwars2 random 7"#,
    );
    let arena = arena();
    let a = arena.to_string_lossy().into_owned();
    let game = |first: &Path| -> serde_json::Value {
        let replay = world.root().join("inotify.json");
        let output = Command::new(&arena)
            .args(["play", "langwars2", "--seed", "11", "--bot"])
            .arg(format!("hog=sh {} {a}", first.display()))
            .arg("--bot")
            .arg(format!("checker=sh {} {a}", checker.display()))
            .args(["--bot", "random", "--bot", "greedy", "--replay"])
            .arg(&replay)
            .output()
            .expect("arena runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&std::fs::read(&replay).expect("replay")).expect("json")
    };
    let attacked = game(&hog);
    let control = game(&plain);
    let stderr = |replay: &serde_json::Value, seat: usize| seat_stderr(replay, seat);
    let limit: usize = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_instances")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(128);
    // The attack is real: the hog reached its user's limit (below its open-files limit).
    if limit < 1000 {
        assert!(
            stderr(&attacked, 0).contains(&format!("held {limit}")),
            "{}",
            stderr(&attacked, 0)
        );
    }
    let checked = stderr(&attacked, 1);
    assert!(!checked.contains("BREACH"), "{checked}");
    assert!(checked.contains("inotify checks"), "{checked}");
    for replay in [&attacked, &control] {
        for seat in 0..4 {
            assert!(
                fault_kinds(replay, seat).is_empty(),
                "{}",
                replay["players"]
            );
        }
    }
    assert!(innocents(&attacked) == innocents(&control));
    let left = processes_left_since(&before);
    assert!(left.is_empty(), "processes left: {left:?}");
}

/// A bot that fills its disk at every game of a 2-job tournament gets ENOSPC each time (its folder
/// is bounded and emptied between games), plays on, and the tournament's results are those of the
/// same tournament with the bot playing plainly.
#[test]
fn a_bot_filling_its_disk_changes_no_tournament_result() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    let before = sandbox_processes();
    let filler = world.script(
        "disk filler",
        LangWars,
        r#"[ "$(stat -f -c %T .)" = tmpfs ] || echo BREACH the folder is on the host disk >&2
for i in 1 2 3; do head -c 30000000 /dev/zero > fill$i 2>>/tmp/fill.err; done
if grep -q 'No space left' /tmp/fill.err; then echo disk full >&2; else echo BREACH no ENOSPC >&2; fi"#,
    );
    let plain = world.script("plain", LangWars, "true");
    let arena = arena();
    let a = arena.to_string_lossy().into_owned();
    let tournament = |offender: &Path, out: &Path| -> Vec<serde_json::Value> {
        let output = Command::new(&arena)
            .args(["tournament", "langwars2", "--jobs", "2", "--games", "4"])
            .args(["--seed", "3", "--disk-mib", "64", "--memory-mib", "256"])
            .args(["--bot", &format!("offender=sh {} {a}", offender.display())])
            .args(["--bot", "random", "--bot", "greedy", "--bot", "random"])
            .arg("--out")
            .arg(out)
            .output()
            .expect("arena runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = std::fs::read_to_string(out.join("results.jsonl")).expect("results");
        let mut games: Vec<serde_json::Value> = text
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        games.sort_by_key(|game| game["game"].as_u64());
        games
    };
    let filled = world.root().join("bots/filled");
    let attacked = tournament(&filler, &filled);
    let control = tournament(&plain, &world.root().join("bots/plain"));
    assert_eq!(attacked.len(), 4);
    for game in 0..4 {
        let stderr = offender_stderr(&filled, game);
        assert!(!stderr.contains("BREACH"), "game {game}: {stderr}");
        assert!(stderr.contains("disk full"), "game {game}: {stderr}");
    }
    let outcomes = |games: &[serde_json::Value]| -> Vec<serde_json::Value> {
        games.iter().map(|game| game["outcome"].clone()).collect()
    };
    assert_eq!(outcomes(&attacked), outcomes(&control));
    let left = processes_left_since(&before);
    assert!(left.is_empty(), "processes left: {left:?}");
}

/// The folders a bot works in that arena does not make fresh are bounded too: a KotH bot's folder,
/// kept from game to game on the host's disk, and the game's copy of a folder given to `arena play`
/// with `--workdir`. The bot works in a bounded copy, written back after each game: a bot filling
/// it gets ENOSPC, what it keeps carries to its next game, the host's folder never holds more than
/// the limit, and the KotH plays every game.
#[test]
fn a_bot_filling_a_folder_arena_keeps_gets_enospc_and_the_host_disk_holds_its_limit() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    let before = sandbox_processes();
    let body = r#"[ "$(stat -f -c %T .)" = tmpfs ] || echo BREACH the folder is on the host disk >&2
if [ -e fill1 ]; then echo kept from before >&2; else
  for i in 1 2 3; do head -c 30000000 /dev/zero > fill$i 2>>/tmp/fill.err; done
  if grep -q 'No space left' /tmp/fill.err; then echo disk full >&2; else echo BREACH no ENOSPC >&2; fi
fi"#;
    let filler = world.script("koth filler", Coup, body);
    let arena = arena();
    let a = arena.to_string_lossy().into_owned();
    let out = world.root().join("koth");
    let output = Command::new(&arena)
        .args([
            "koth",
            "coup",
            "--rounds",
            "1",
            "--seed",
            "3",
            "--disk-mib",
            "64",
        ])
        .args(["--bot", &format!("offender=sh {} {a}", filler.display())])
        .args(["--bot", "income", "--bot", "taxman", "--dir"])
        .arg(&out)
        .output()
        .expect("arena runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let games: Vec<serde_json::Value> = std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results")
        .lines()
        .map(|line| serde_json::from_str(line).expect("json"))
        .collect();
    // Each of the three plays each other in both seats, in one round.
    assert_eq!(games.len(), 6);
    // The offender's games (those of two built-ins keep no replay).
    let said: String = games
        .iter()
        .filter(|game| game["replay"].is_string())
        .map(|game| {
            let index = game["index"].as_u64().expect("index") as usize;
            offender_stderr_of(&out, index, "offender")
        })
        .collect();
    assert!(!said.contains("BREACH"), "{said}");
    assert!(said.contains("disk full"), "{said}");
    assert!(said.contains("kept from before"), "{said}");
    let kept = out.join("bots/offender");
    let size = folder_bytes(&kept);
    assert!(kept.join("fill1").is_file(), "the bot's files were kept");
    assert!(size <= 64 << 20, "the kept folder holds {size} bytes");

    // `arena play --workdir`: the game's copy of the folder is bounded the same way.
    let folder = world.root().join("bots/given");
    std::fs::create_dir_all(&folder).expect("folder");
    let filler = world.script("play filler", LangWars, body);
    let replay = world.root().join("given.json");
    let output = Command::new(&arena)
        .args(["play", "langwars2", "--seed", "3", "--disk-mib", "64"])
        .args(["--bot", &format!("offender=sh {} {a}", filler.display())])
        .arg("--workdir")
        .arg(&folder)
        .args([
            "--bot", "random", "--bot", "greedy", "--bot", "random", "--replay",
        ])
        .arg(&replay)
        .output()
        .expect("arena runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&replay).expect("replay")).expect("json");
    let said = seat_stderr(&record, 0);
    assert!(!said.contains("BREACH"), "{said}");
    assert!(said.contains("disk full"), "{said}");
    // A game plays in a copy of the folder given: the folder is as it was.
    assert_eq!(folder_bytes(&folder), 0);
    let left = processes_left_since(&before);
    assert!(left.is_empty(), "processes left: {left:?}");
}

/// The bytes of the files under `dir`.
fn folder_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .expect("folder")
        .map(|entry| {
            let entry = entry.expect("entry");
            let meta = entry.metadata().expect("metadata");
            if meta.is_dir() {
                folder_bytes(&entry.path())
            } else {
                meta.len()
            }
        })
        .sum()
}

/// Two arena processes at once (two test suites, a contest's workers) never give two running
/// sandboxes the same user: the uids of eight bots, four in each of two games played at the same
/// time, are eight uids of the range.
#[test]
fn two_arenas_at_once_never_share_a_bot_user() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    // Each bot says its uid and stays a second, so that all eight sandboxes live at once.
    let script = world.script("says its user", LangWars, "id -u >&2; sleep 1");
    let arena = arena();
    let a = arena.to_string_lossy().into_owned();
    let games: Vec<_> = (0..2)
        .map(|game| {
            let replay = world.root().join(format!("users-{game}.json"));
            let mut command = Command::new(&arena);
            command.args(["play", "langwars2", "--seed", "5", "--replay"]);
            command.arg(&replay);
            for seat in 0..4 {
                command.args(["--bot", &format!("b{seat}=sh {} {a}", script.display())]);
            }
            let child = command
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("arena starts");
            (child, replay)
        })
        .collect();
    let mut uids = Vec::new();
    for (child, replay) in games {
        let output = child.wait_with_output().expect("arena runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let record: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&replay).expect("replay")).expect("json");
        for seat in 0..4 {
            let stderr = seat_stderr(&record, seat);
            let uid: u32 = stderr.trim().parse().expect("a uid");
            uids.push(uid);
        }
    }
    assert!(
        uids.iter().all(|&uid| DEFAULT_UIDS.contains(uid)),
        "{uids:?}"
    );
    let distinct: BTreeSet<u32> = uids.iter().copied().collect();
    assert_eq!(distinct.len(), 8, "{uids:?}");
}

/// A bot whose own folder is larger than its disk (`--disk-mib 1`, a 3 MB file) never plays in a
/// copy on the host's disk, where it could write without bound: the tournament's start-up check
/// cannot start it in its bounded folder and says why and what to change, before any game. (A
/// game's pooled sandbox would start it without its folder, where it faults.)
#[test]
fn a_bot_folder_larger_than_its_disk_is_never_copied_to_the_host_disk() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    let folder = world.root().join("bots/big");
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::write(folder.join("blob"), vec![7u8; 3 << 20]).expect("blob");
    std::fs::write(
        folder.join("bot.sh"),
        "[ -e blob ] && echo BREACH played beside its 3 MB file >&2\nexec \"$1\" bot langwars2 random 7\n",
    )
    .expect("bot");
    let arena = arena();
    let out = world.root().join("bots/big-tournament");
    let output = Command::new(&arena)
        .args(["tournament", "langwars2", "--jobs", "1", "--games", "2"])
        .args(["--seed", "3", "--disk-mib", "1"])
        .args(["--bot", &format!("big=sh bot.sh {}", arena.display())])
        .arg("--workdir")
        .arg(&folder)
        .args(["--bot", "random", "--bot", "greedy", "--bot", "random"])
        .arg("--out")
        .arg(&out)
        .output()
        .expect("arena runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("does not fit its disk of 1 MiB") && stderr.contains("--disk-mib"),
        "{stderr}"
    );
    assert!(!stderr.contains("BREACH"), "{stderr}");
    let played = std::fs::read_to_string(out.join("results.jsonl")).unwrap_or_default();
    assert_eq!(played, "", "no game was played");
}

/// What the bot labelled `name` wrote on stderr in game `game` of the tournament in `out`.
fn offender_stderr_of(out: &Path, game: usize, name: &str) -> String {
    let path = out.join(format!("replays/{game:06}.json.gz"));
    let bytes = std::fs::read(&path).expect("replay");
    let mut json = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut json)
        .expect("gzip");
    let replay: serde_json::Value = serde_json::from_str(&json).expect("json");
    replay["players"]
        .as_array()
        .and_then(|players| players.iter().position(|p| p["name"] == name))
        .map(|seat| seat_stderr(&replay, seat))
        .unwrap_or_default()
}

/// What a tournament gave: its exit status, output, arena's peak resident memory (KiB, with the
/// children it waited for) and its results, one JSON line per game.
struct TournamentRun {
    success: bool,
    output: String,
    peak_kib: i64,
    results: Vec<serde_json::Value>,
}

/// `arena tournament ARGS --out OUT` in `dir`, waited for with `wait4` (its peak memory).
fn tournament(dir: &Path, args: &[String], out: &Path) -> TournamentRun {
    use std::io::Read;
    // Reaped by `wait4` below (for its resource usage), not by `Child::wait`.
    #[allow(clippy::zombie_processes)]
    let mut child = Command::new(arena())
        .arg("tournament")
        .args(args)
        .arg("--out")
        .arg(out)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("arena starts");
    // Both pipes read on threads, so that neither fills while arena runs.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let mut output = String::new();
    let _ = stderr.read_to_string(&mut output);
    output.push_str(&reader.join().unwrap_or_default());
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 on our own child fills it and `status`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let waited = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(waited, child.id() as i32, "wait4");
    let results = std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    TournamentRun {
        success: libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        output,
        peak_kib: usage.ru_maxrss,
        results,
    }
}

/// A game's result without its timing (which differs from run to run).
fn result_of(entry: &serde_json::Value) -> serde_json::Value {
    let mut entry = entry.clone();
    if let Some(map) = entry.as_object_mut() {
        map.remove("timing");
        map.remove("replay");
    }
    entry
}

/// A Coup bot in a tournament (its sandbox kept between games, its history file in a folder it
/// may write) that turns its history file into a FIFO, a link to /dev/zero or a 200 MB file after
/// its first call forfeits that game (modified history): arena neither blocks on the FIFO nor
/// reads /dev/zero or the big file, the tournament finishes, arena's memory stays small, and
/// every game between the other bots has the result it has when the offenders play plainly.
#[test]
fn a_coup_bot_that_replaces_its_history_file_forfeits_and_the_tournament_finishes() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    let before_processes = sandbox_processes();
    let a = arena().to_string_lossy().into_owned();
    let attacks = [
        ("fifo", r#"rm -f "$H" && mkfifo "$H""#),
        ("zero", r#"rm -f "$H" && ln -s /dev/zero "$H""#),
        ("huge", r#"head -c 200000000 /dev/zero >> "$H""#),
    ];
    // The attack from the second call of a game on (the start-up probe makes one call).
    let offender = |act: &str| {
        format!(
            "#!/bin/sh\nARENA=\"$1\"; shift\nH=\"$1\"\n\"$ARENA\" bot coup random \"$@\" || exit $?\n\
             if [ -e .called ]; then {act}; else touch .called; fi\nexit 0\n"
        )
    };
    let mut args: Vec<String> = ["coup", "--jobs", "2", "--games", "40", "--seed", "5"]
        .map(String::from)
        .into();
    let innocent = world.root().join("innocent/bot.sh");
    let mut plain_args = args.clone();
    for (name, act) in attacks {
        let attacking = world.root().join(format!("bots/{name}.sh"));
        let plain = world.root().join(format!("bots/{name}-plain.sh"));
        std::fs::write(&attacking, offender(act)).expect("script");
        std::fs::write(&plain, offender("true")).expect("script");
        args.extend([
            "--bot".into(),
            format!("{name}=sh {} {a}", attacking.display()),
        ]);
        plain_args.extend(["--bot".into(), format!("{name}=sh {} {a}", plain.display())]);
    }
    for list in [&mut args, &mut plain_args] {
        list.extend([
            "--bot".into(),
            format!("innocent=sh {} {a} coup", innocent.display()),
            "--bot".into(),
            "random".into(),
        ]);
    }
    let attacked = tournament(world.root(), &args, &world.root().join("attacked"));
    assert!(
        attacked.success,
        "the tournament failed: {}",
        attacked.output
    );
    let plain = tournament(world.root(), &plain_args, &world.root().join("plain"));
    assert!(
        plain.success,
        "the plain tournament failed: {}",
        plain.output
    );
    assert_eq!(
        attacked.results.len(),
        plain.results.len(),
        "every game played"
    );
    for (name, _) in attacks {
        let forfeits = attacked
            .results
            .iter()
            .filter(|entry| {
                let seat = entry["bots"]
                    .as_array()
                    .and_then(|bots| bots.iter().position(|bot| bot == name));
                seat.is_some_and(|seat| {
                    entry["faults"][seat]
                        .as_array()
                        .is_some_and(|faults| faults.iter().any(|f| f == "forfeit"))
                })
            })
            .count();
        assert!(forfeits > 0, "{name} never forfeited: {}", attacked.output);
    }
    let offenders = ["fifo", "zero", "huge"];
    let by_index = |run: &TournamentRun| -> std::collections::BTreeMap<u64, serde_json::Value> {
        run.results
            .iter()
            .filter(|entry| {
                entry["bots"]
                    .as_array()
                    .is_some_and(|bots| !bots.iter().any(|bot| offenders.iter().any(|o| bot == o)))
            })
            .map(|entry| {
                (
                    entry["index"].as_u64().unwrap_or(u64::MAX),
                    result_of(entry),
                )
            })
            .collect()
    };
    let (others, others_plain) = (by_index(&attacked), by_index(&plain));
    assert!(!others.is_empty(), "no game between the other bots");
    assert_eq!(
        others, others_plain,
        "a game between the other bots changed"
    );
    // The 200 MB file and /dev/zero were not read: arena stayed small.
    assert!(
        attacked.peak_kib < 150 << 10,
        "arena's peak memory {} KiB",
        attacked.peak_kib
    );
    eprintln!(
        "peak memory: {} KiB attacked, {} KiB plain",
        attacked.peak_kib, plain.peak_kib
    );
    let new = processes_left_since(&before_processes);
    assert!(new.is_empty(), "processes left: {new:?}");
}

/// `--bot ./prog` plays as `--bot $PWD/prog` does, in a tournament (kept sandboxes) and in a
/// single game: the same results, no fault.
#[test]
fn a_relative_program_path_plays_as_the_absolute_one() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    let before_processes = sandbox_processes();
    let a = arena().to_string_lossy().into_owned();
    let program = world.root().join("lw2bot");
    std::fs::write(
        &program,
        format!("#!/bin/sh\nexec {a} bot langwars2 random \"$@\"\n"),
    )
    .expect("program");
    std::fs::set_permissions(
        &program,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("mode");
    let run = |command: &str, out: &str| {
        let mut args: Vec<String> = ["langwars2", "--jobs", "2", "--games", "8", "--seed", "9"]
            .map(String::from)
            .into();
        for _ in 0..4 {
            args.extend(["--bot".into(), command.to_string()]);
        }
        tournament(world.root(), &args, &world.root().join(out))
    };
    let relative = run("./lw2bot", "relative");
    let absolute = run(&program.to_string_lossy(), "absolute");
    assert!(relative.success, "{}", relative.output);
    assert!(absolute.success, "{}", absolute.output);
    let results = |run: &TournamentRun| run.results.iter().map(result_of).collect::<Vec<_>>();
    assert_eq!(results(&relative).len(), 8);
    for entry in &relative.results {
        assert_eq!(
            entry["faults"],
            serde_json::json!([[], [], [], []]),
            "{}",
            relative.output
        );
    }
    let mut sorted = (results(&relative), results(&absolute));
    sorted.0.sort_by_key(|e| e["index"].as_u64());
    sorted.1.sort_by_key(|e| e["index"].as_u64());
    assert_eq!(sorted.0, sorted.1, "not the same games");
    let played = Command::new(arena())
        .args(["play", "langwars2", "--seed", "9"])
        .args([
            "--bot", "./lw2bot", "--bot", "./lw2bot", "--bot", "random", "--bot", "random",
        ])
        .current_dir(world.root())
        .output()
        .expect("arena runs");
    let text = String::from_utf8_lossy(&played.stdout).into_owned()
        + &String::from_utf8_lossy(&played.stderr);
    assert!(
        played.status.success() && !text.contains("fault:"),
        "{text}"
    );
    let new = processes_left_since(&before_processes);
    assert!(new.is_empty(), "processes left: {new:?}");
}

/// On a machine with rustup (`~/.cargo/bin/rustc` is a link to rustup), a Rust bot builds and
/// plays in the sandbox, and a command naming the proxy runs the toolchain (rustup dispatches on
/// the name it is called by, and finds its toolchains in its home). Skipped, saying so, only when
/// rustup is not installed.
#[test]
fn a_rust_bot_builds_and_plays_with_rustup() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
        eprintln!("skipped: no HOME, so no rustup");
        return;
    };
    let proxy = home.join(".cargo/bin/rustc");
    let is_rustup = std::fs::canonicalize(&proxy)
        .is_ok_and(|real| real.file_name().is_some_and(|name| name == "rustup"));
    if !is_rustup {
        eprintln!(
            "skipped: rustup is not installed ({} is not its proxy)",
            proxy.display()
        );
        return;
    }
    let world = World::new();
    let before_processes = sandbox_processes();
    let bot = world.root().join("bot.rs");
    std::fs::write(
        &bot,
        r#"use std::io::BufRead;
fn main() {
    let mut lines = std::io::stdin().lock().lines().map(|l| l.unwrap_or_default());
    let cells: usize = lines.next().and_then(|l| l.trim().parse().ok()).unwrap_or(0);
    for _ in 0..cells { lines.next(); }
    while lines.next().is_some() {
        lines.next(); lines.next(); lines.next();
        let trees: usize = lines.next().and_then(|l| l.trim().parse().ok()).unwrap_or(0);
        for _ in 0..trees { lines.next(); }
        let actions: usize = lines.next().and_then(|l| l.trim().parse().ok()).unwrap_or(0);
        for _ in 0..actions { lines.next(); }
        println!("WAIT");
    }
}
"#,
    )
    .expect("bot");
    let path = format!(
        "{}:{}",
        home.join(".cargo/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let played = Command::new(arena())
        .args([
            "play",
            "spring2021",
            "--bot",
            "bot.rs",
            "--bot",
            "random",
            "--seed",
            "4",
        ])
        .current_dir(world.root())
        .env("PATH", &path)
        .env("ARENA_CACHE_DIR", world.root().join("cache"))
        .output()
        .expect("arena runs");
    let text = String::from_utf8_lossy(&played.stdout).into_owned()
        + &String::from_utf8_lossy(&played.stderr);
    assert!(played.status.success(), "{text}");
    assert!(!text.contains("fault: seat 0"), "{text}");
    // The proxy itself, named by the command: it must run rustc (rustup would refuse `--print`).
    let proxied = Command::new(arena())
        .args(["play", "langwars2", "--seed", "4", "--bot"])
        .arg(format!("{} --print sysroot", proxy.display()))
        .args(["--bot", "random", "--bot", "random", "--bot", "random"])
        .current_dir(world.root())
        .output()
        .expect("arena runs");
    let text = String::from_utf8_lossy(&proxied.stdout).into_owned()
        + &String::from_utf8_lossy(&proxied.stderr);
    assert!(text.contains("exited (code 0)"), "{text}");
    let new = processes_left_since(&before_processes);
    assert!(new.is_empty(), "processes left: {new:?}");
}

/// A tournament whose bot hangs in its start-up probe (a call with a minute's limit) ends at once
/// on SIGTERM, leaving no process: a stuck bot never keeps arena from ending.
#[test]
fn sigterm_ends_a_tournament_stuck_on_a_bot() {
    let Some(_serial) = sandbox_test() else {
        return;
    };
    let world = World::new();
    let before_processes = sandbox_processes();
    let script = world.root().join("bots/hang.sh");
    std::fs::write(&script, "#!/bin/sh\nexec sleep 7777\n").expect("script");
    let mut child = Command::new(arena())
        .args([
            "tournament",
            "coup",
            "--games",
            "2",
            "--call-limit-ms",
            "60000",
        ])
        .args(["--bot", &format!("hang=sh {}", script.display())])
        .args(["--bot", "random", "--out"])
        .arg(world.root().join("out-hang"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("arena starts");
    // Until the bot hangs in its sandbox.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !sandbox_processes()
        .difference(&before_processes)
        .any(|(_, name)| name.starts_with("sleep"))
    {
        assert!(std::time::Instant::now() < until, "the bot never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: kill(2) on our own child, not yet reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if std::time::Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("arena was still running 20 s after SIGTERM (the bot's limit is 60 s)");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(!status.success(), "{status:?}");
    let new = processes_left_since(&before_processes);
    assert!(new.is_empty(), "processes left: {new:?}");
}
