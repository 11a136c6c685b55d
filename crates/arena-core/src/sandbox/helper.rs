//! The resident helper: the program that runs inside a sandbox kept for a series of calls or
//! games (`arena` itself, started with [`HELPER_ARG`]: see [`run_helper_if_asked`]) and starts each
//! call or game's bot in it, and the protocol arena speaks with it on its control pipe or socket.
//! Arena's side of a helper is in `resident` (one game) and `pool` (sandboxes kept between games).

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::seccomp::{bot_filter, install_filter};
use super::sys::pipe;

/// The first argument that makes `arena` (or any program calling [`run_helper_if_asked`] first thing
/// in `main`) act as a resident sandbox's helper.
pub const HELPER_ARG: &str = "__arena-sandbox-helper";
/// Stdout kept per call by the helper; the rest is read and dropped.
pub(super) const HELPER_STDOUT_CAP: usize = 4096;

/// What the helper writes once it runs.
pub(super) const READY: &[u8] = b"R";
/// Helper requests: run a call and report, or become the command.
pub(super) const CALL: u8 = b'C';
/// After a game of calls: kill what is left and empty the sandbox (the request names the calls
/// folder); answered with [`CLEAN`].
pub(super) const RESET: u8 = b'R';
pub(super) const EXEC: u8 = b'E';
/// A game in a reused sandbox (the kind byte comes with the game's three pipes), and the helper's
/// answers: the end of a game asked, the sandbox clean again.
pub(super) const GAME: u8 = b'G';
pub(super) const END: u8 = b'K';
pub(super) const CLEAN: &[u8] = b"C";

/// `kind, u32 length, arguments each followed by NUL`.
pub(super) fn helper_request(kind: u8, argv: &[String]) -> Vec<u8> {
    let mut payload = Vec::new();
    for arg in argv {
        payload.extend_from_slice(arg.as_bytes());
        payload.push(0);
    }
    let mut message = vec![kind];
    message.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    message.extend_from_slice(&payload);
    message
}

/// Call first thing in `main`: when started as a resident sandbox's helper (`PROGRAM
/// __arena-sandbox-helper UID GID`), serves calls until arena closes the control pipe and exits;
/// otherwise returns at once. The helper must be single-threaded (it forks), hence first thing.
pub fn run_helper_if_asked() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(HELPER_ARG)) {
        return;
    }
    let id = |arg: Option<std::ffi::OsString>| -> Option<u32> { arg?.to_str()?.parse().ok() };
    let (uid, gid) = (id(args.next()), id(args.next()));
    let code = helper_loop(uid, gid);
    std::process::exit(code);
}

/// The helper: reads `u32 length, NUL-terminated arguments` on stdin, runs each as a call (stdin
/// `/dev/null`, stdout captured, stderr shared), and answers `u8 0, i32 wait status, u32 length,
/// stdout` on stdout once the call's process has exited and every other process it left is killed.
fn helper_loop(uid: Option<u32>, gid: Option<u32>) -> i32 {
    // A bot running as the same user (no root) must not be able to trace or inspect the helper.
    // SAFETY: prctl on ourselves.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
    // Unbuffered: after an exec request, what follows on stdin is the bot's input, not ours to read.
    // SAFETY: descriptors 0 and 1 are the control pipes, open for the helper's whole life; wrapped
    // without taking ownership.
    let (mut control_in, mut control_out) = unsafe {
        (
            std::mem::ManuallyDrop::new(File::from_raw_fd(0)),
            std::mem::ManuallyDrop::new(File::from_raw_fd(1)),
        )
    };
    let Ok(null) = File::open("/dev/null") else {
        return 1;
    };
    // Made at the first game and kept for the sandbox's life (see `Spawner`).
    let mut spawner: Option<Spawner> = None;
    // The bot's filter is on this thread too, installed at the first call: a sandbox that serves
    // calls serves nothing else, and its calls then inherit the filter (see `Spawner` for why).
    let mut calls_filtered = false;
    // Ready: arena waits for this before it counts the sandbox as set up.
    if control_out.write_all(READY).is_err() {
        return 1;
    }
    loop {
        let mut header = [0u8; 5];
        // The kind byte comes with the game's pipes when it is a game request (a socket).
        let (kind, passed) = match receive_with_fds(0) {
            Ok(Some(received)) => received,
            Ok(None) => return 0,
            Err(_) => return 1,
        };
        header[0] = kind;
        if control_in.read_exact(&mut header[1..]).is_err() {
            return 0;
        }
        let length = u32::from_le_bytes([header[1], header[2], header[3], header[4]]) as usize;
        let mut request = vec![0u8; length];
        if control_in.read_exact(&mut request).is_err() {
            return 1;
        }
        let argv: Vec<CString> = request
            .strip_suffix(&[0])
            .unwrap_or(&request)
            .split(|&b| b == 0)
            .filter_map(|arg| CString::new(arg).ok())
            .collect();
        if header[0] == RESET {
            kill_the_rest();
            reset_for_the_next_game(&argv);
            if control_out.write_all(CLEAN).is_err() {
                return 1;
            }
            continue;
        }
        if argv.is_empty() || argv[0].is_empty() {
            return 0;
        }
        if header[0] == EXEC {
            // SAFETY: single-threaded; becomes the bot or exits.
            unsafe {
                libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
                become_bot(&argv, uid, gid)
            }
        }
        if header[0] == GAME {
            let Ok(pipes) = <[OwnedFd; 3]>::try_from(passed) else {
                return 1;
            };
            if calls_filtered {
                // This thread can no longer make a bot a group leader (nor a spawner that could).
                return 1;
            }
            if spawner.is_none() {
                spawner = Spawner::start();
            }
            let spawner = spawner.as_ref();
            let (input, output) = (&mut control_in, &mut control_out);
            if helper_game(&argv, pipes, spawner, input, output, uid, gid).is_err() {
                return 1;
            }
            continue;
        }
        if !calls_filtered && spawner.is_none() {
            // SAFETY: installing a filter on this thread, which stays single-threaded.
            calls_filtered = unsafe { install_filter(&mut bot_filter()) }.is_ok();
        }
        let (status, output) = helper_call(&argv, &null, uid, gid, calls_filtered);
        let mut reply = vec![0u8];
        reply.extend_from_slice(&status.to_le_bytes());
        reply.extend_from_slice(&(output.len() as u32).to_le_bytes());
        reply.extend_from_slice(&output);
        if control_out.write_all(&reply).is_err() {
            return 1;
        }
    }
}

/// Room for the control messages of one message (three descriptors, or one `ucred`), aligned for
/// `cmsghdr`.
type ControlBuffer = [u64; 8];

/// Receives one byte on socket `fd` (`recvmsg` with `flags`) and calls `each(type, data)` for
/// every `SOL_SOCKET` control message that came with it. `Ok(None)` at end of file.
fn receive_byte(
    fd: RawFd,
    flags: libc::c_int,
    mut each: impl FnMut(libc::c_int, &[u8]),
) -> io::Result<Option<u8>> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control: ControlBuffer = [0; 8];
    // SAFETY: an all-zero msghdr is valid; its pointers are set below.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut iov;
    message.msg_iovlen = 1;
    message.msg_control = control.as_mut_ptr().cast();
    message.msg_controllen = std::mem::size_of_val(&control) as _;
    // SAFETY: recvmsg into buffers that live across the call.
    let n = unsafe { libc::recvmsg(fd, &mut message, flags) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    if n == 0 {
        return Ok(None);
    }
    // SAFETY: walking the control messages the kernel wrote into `message`.
    unsafe {
        let mut header = libc::CMSG_FIRSTHDR(&message);
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET {
                let length = (*header).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                let data = std::slice::from_raw_parts(libc::CMSG_DATA(header), length);
                each((*header).cmsg_type, data);
            }
            header = libc::CMSG_NXTHDR(&message, header);
        }
    }
    Ok(Some(byte[0]))
}

/// Sends `byte` on socket `fd` with one `SOL_SOCKET` control message of type `kind` carrying
/// `data`. Allocates nothing: the helper's child calls it between its start and its exec.
fn send_byte(fd: RawFd, byte: u8, kind: libc::c_int, data: &[u8]) -> io::Result<()> {
    let mut payload = [byte];
    let mut iov = libc::iovec {
        iov_base: payload.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control: ControlBuffer = [0; 8];
    // SAFETY: an all-zero msghdr is valid; its pointers are set below, the control message is
    // written within `control` (checked against its size).
    unsafe {
        let space = libc::CMSG_SPACE(data.len() as u32) as usize;
        if space > std::mem::size_of_val(&control) {
            return Err(io::Error::other("control message too large"));
        }
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = space as _;
        let header = libc::CMSG_FIRSTHDR(&message);
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = kind;
        (*header).cmsg_len = libc::CMSG_LEN(data.len() as u32) as _;
        std::ptr::copy_nonoverlapping(data.as_ptr(), libc::CMSG_DATA(header), data.len());
        loop {
            if libc::sendmsg(fd, &message, libc::MSG_NOSIGNAL) == 1 {
                return Ok(());
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

/// Receives one byte on descriptor `fd` with any descriptors passed along (a socket), or reads it
/// (a pipe). `None` at end of file.
fn receive_with_fds(fd: RawFd) -> io::Result<Option<(u8, Vec<OwnedFd>)>> {
    loop {
        let mut fds = Vec::new();
        let received = receive_byte(fd, libc::MSG_CMSG_CLOEXEC, |kind, data| {
            if kind == libc::SCM_RIGHTS {
                for raw in data.chunks_exact(std::mem::size_of::<RawFd>()) {
                    let Ok(bytes) = raw.try_into() else {
                        continue;
                    };
                    // SAFETY: a descriptor the kernel just installed for us.
                    fds.push(unsafe { OwnedFd::from_raw_fd(RawFd::from_ne_bytes(bytes)) });
                }
            }
        });
        match received {
            Ok(byte) => return Ok(byte.map(|byte| (byte, fds))),
            Err(error) => match error.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::ENOTSOCK) => {
                    let mut byte = [0u8; 1];
                    // SAFETY: read into a one-byte buffer.
                    let n = unsafe { libc::read(fd, byte.as_mut_ptr().cast(), 1) };
                    return match n {
                        1 => Ok(Some((byte[0], Vec::new()))),
                        0 => Ok(None),
                        _ => Err(io::Error::last_os_error()),
                    };
                }
                _ => return Err(error),
            },
        }
    }
}

/// Sends `byte` on the socket `fd` with `fds` passed along.
pub(super) fn send_with_fds(fd: RawFd, byte: u8, fds: &[RawFd]) -> io::Result<()> {
    let mut data = [0u8; 3 * std::mem::size_of::<RawFd>()];
    let length = std::mem::size_of_val(fds);
    if length > data.len() {
        return Err(io::Error::other("too many descriptors"));
    }
    for (slot, fd) in data.chunks_exact_mut(std::mem::size_of::<RawFd>()).zip(fds) {
        slot.copy_from_slice(&fd.to_ne_bytes());
    }
    send_byte(fd, byte, libc::SCM_RIGHTS, &data[..length])
}

/// A game in a reused sandbox: starts `argv` on the game's pipes as the bot's user, reports its exit
/// (`X`, wait status) as it happens, and on arena's end request (`K`) kills everything the game left,
/// empties what the bot could write and reports the sandbox clean (`C`), ready for the next game.
fn helper_game(
    argv: &[CString],
    pipes: [OwnedFd; 3],
    spawner: Option<&Spawner>,
    control_in: &mut File,
    control_out: &mut File,
    uid: Option<u32>,
    gid: Option<u32>,
) -> io::Result<()> {
    // The bot leads a process group of its own, announced to arena (which pauses that group
    // alone, not bwrap, init and the helper with it); the game's pipes become its 0-2.
    let mut plan = BotExec::new(argv, uid, gid);
    plan.own_group = true;
    plan.stdio = pipes.each_ref().map(|pipe| Some(pipe.as_raw_fd()));
    let pid = match spawner {
        Some(spawner) => spawner.spawn_leader(&mut plan),
        None => plan.spawn(),
    };
    drop(pipes);
    let report = |out: &mut File, status: i32| -> io::Result<()> {
        let mut message = vec![b'X'];
        message.extend_from_slice(&status.to_le_bytes());
        out.write_all(&message)
    };
    let mut exited = pid < 0;
    if exited {
        report(control_out, 127 << 8)?;
    }
    // SAFETY: pidfd_open on our own child (when there is one).
    let pidfd = if exited {
        -1
    } else {
        unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) as RawFd }
    };
    loop {
        let mut fds = [
            libc::pollfd {
                fd: control_in.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: if exited { -1 } else { pidfd },
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: valid pollfds (a negative descriptor is skipped).
        if unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) } < 0 {
            continue;
        }
        if !exited && fds[1].revents != 0 {
            let mut status = 0;
            // SAFETY: waitpid on our own child, which has exited.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            exited = true;
            report(control_out, status)?;
        }
        if fds[0].revents != 0 {
            let mut request = [0u8; 1];
            if control_in.read(&mut request)? != 1 || request[0] != END {
                return Err(io::Error::other("arena left"));
            }
            kill_the_rest();
            if !exited {
                let mut status = 0;
                // SAFETY: waitpid on our own child, killed just above.
                unsafe { libc::waitpid(pid, &mut status, 0) };
                report(control_out, status)?;
            }
            if pidfd >= 0 {
                // SAFETY: closing the descriptor we opened.
                unsafe { libc::close(pidfd) };
            }
            reset_for_the_next_game(&[]);
            return control_out.write_all(CLEAN);
        }
    }
}

/// Marks the message that carries a game's bot process group (its leader's credentials).
const GROUP: u8 = b'P';

/// Sends [`GROUP`] on the control socket `fd` with this process's credentials: the kernel gives
/// arena the pid in arena's own PID namespace, which the sandbox's processes do not know.
fn announce_group(fd: RawFd) {
    // SAFETY: plain getters of this process's ids.
    let credentials = unsafe {
        libc::ucred {
            pid: libc::getpid(),
            uid: libc::getuid(),
            gid: libc::getgid(),
        }
    };
    // SAFETY: viewing a plain C struct as its bytes.
    let data = unsafe {
        std::slice::from_raw_parts(
            (&credentials as *const libc::ucred).cast::<u8>(),
            std::mem::size_of::<libc::ucred>(),
        )
    };
    // Best effort: without it arena pauses the whole sandbox's group, as before.
    let _ = send_byte(fd, GROUP, libc::SCM_CREDENTIALS, data);
}

/// The process groups announced on `fd` (arena's end of a control socket with `SO_PASSCRED`) and
/// not read yet, oldest first; never waits.
pub(super) fn announced_groups(fd: RawFd) -> Vec<i32> {
    let mut groups = Vec::new();
    loop {
        let mut pid = None;
        let received = receive_byte(fd, libc::MSG_DONTWAIT, |kind, data| {
            if kind == libc::SCM_CREDENTIALS && data.len() >= std::mem::size_of::<libc::ucred>() {
                // SAFETY: the kernel wrote a ucred there.
                let credentials = unsafe { data.as_ptr().cast::<libc::ucred>().read_unaligned() };
                pid = Some(credentials.pid);
            }
        });
        match received {
            Ok(Some(GROUP)) => groups.extend(pid.filter(|&pid| pid > 0)),
            Ok(Some(_)) => {}
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Ok(None) | Err(_) => return groups,
        }
    }
}

/// Kills everything in the sandbox but its init and the helper (kill(-1) spares both), again until
/// nothing is left: `kill(-1)` fails only when every other process has died and been reaped
/// (orphans by the init). A count of tries was not enough: on a loaded machine a killed process
/// may not have run its exit yet after a hundred quick tries, and the next call saw it alive.
/// Bounded in time (a process stuck in the kernel cannot hold the sandbox for good).
fn kill_the_rest() {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        // SAFETY: kill(-1) signals every process of this PID namespace we may signal.
        if unsafe { libc::kill(-1, libc::SIGKILL) } != 0 {
            break;
        }
        // SAFETY: reaping our own children, if any.
        while unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) } > 0 {}
        if std::time::Instant::now() >= deadline {
            break;
        }
        // Let the killed processes and the init that reaps them run.
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}

/// Empties what a bot could write in its sandbox (its folder, /tmp, /dev/shm) and removes its System
/// V IPC objects: the next game starts from nothing the last one left.
fn reset_for_the_next_game(more: &[CString]) {
    let more = more
        .iter()
        .map(|dir| Path::new(OsStr::from_bytes(dir.as_bytes())));
    for dir in [Path::new("."), Path::new("/tmp"), Path::new("/dev/shm")]
        .into_iter()
        .chain(more)
    {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
                let _ = if is_dir {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
            }
        }
    }
    for (table, remove) in [("shm", 0u8), ("msg", 1u8), ("sem", 2u8)] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/sysvipc/{table}")) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let Some(id) = line
                .split_whitespace()
                .nth(1)
                .and_then(|id| id.parse().ok())
            else {
                continue;
            };
            // SAFETY: IPC_RMID on an id of this IPC namespace; a wrong id only fails.
            unsafe {
                match remove {
                    0 => libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()),
                    1 => libc::msgctl(id, libc::IPC_RMID, std::ptr::null_mut()),
                    _ => libc::semctl(id, 0, libc::IPC_RMID),
                };
            }
        }
    }
}

/// Everything the bot's process needs between its start and its exec, made in advance: a child
/// started with `vfork` semantics shares the helper's memory and must not allocate.
struct BotExec {
    pointers: Vec<*const libc::c_char>,
    filter: Vec<libc::sock_filter>,
    uid: Option<u32>,
    gid: Option<u32>,
    /// Descriptors that become 0, 1 and 2 (`None`: kept).
    stdio: [Option<RawFd>; 3],
    /// Leads a process group of its own, announced on descriptor 0 (see [`announce_group`]).
    own_group: bool,
    /// Started by a thread already under the bot's filter (a [`Spawner`], or the main thread of a
    /// sandbox serving calls): inherited, not installed again.
    filter_inherited: bool,
    /// With `own_group` under an inherited filter (which refuses `setpgid`): the child writes its
    /// pid on the first descriptor and waits for a byte on the second, 1 once the helper's main
    /// thread has made it a group leader (see [`Spawner::spawn_leader`]).
    handshake: Option<(RawFd, RawFd)>,
}

impl BotExec {
    /// `argv` must outlive the plan (the pointers are into its strings).
    fn new(argv: &[CString], uid: Option<u32>, gid: Option<u32>) -> BotExec {
        let mut pointers: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        pointers.push(std::ptr::null());
        // The bot's whole filter (the helper's lets `setpgid` through), stacked on the helper's.
        let filter = bot_filter();
        BotExec {
            pointers,
            filter,
            uid,
            gid,
            stdio: [None; 3],
            own_group: false,
            filter_inherited: false,
            handshake: None,
        }
    }

    /// Starts the bot as a child and returns its pid (negative on failure). The child shares the
    /// helper's memory until its exec (`CLONE_VM | CLONE_VFORK`, as `posix_spawn` does): no copy
    /// of the helper's page tables, which a fork of this large program costs at every start.
    fn spawn(&mut self) -> libc::pid_t {
        const STACK: usize = 64 << 10;
        let mut stack = vec![0u8; STACK];
        // SAFETY: the stack is ours until the child execs or exits (CLONE_VFORK waits for that);
        // the child runs `run_child` only, which does system calls and no allocation.
        unsafe {
            let top = stack.as_mut_ptr().add(STACK);
            let top = top.sub(top as usize % 16);
            libc::clone(
                run_child,
                top.cast(),
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                (self as *mut BotExec).cast(),
            )
        }
    }

    /// Becomes the bot; never returns.
    ///
    /// # Safety
    /// In the helper (single-threaded) or a child of [`BotExec::spawn`]: system calls only.
    unsafe fn become_bot(&mut self) -> ! {
        // SAFETY: plain system calls on this process (see the function's contract).
        unsafe {
            if self.own_group {
                match self.handshake {
                    Some((tell, wait)) => {
                        let pid = libc::syscall(libc::SYS_getpid) as i32;
                        let mut go = [0u8];
                        if libc::write(tell, pid.to_ne_bytes().as_ptr().cast(), 4) != 4
                            || libc::read(wait, go.as_mut_ptr().cast(), 1) != 1
                            || go[0] != 1
                        {
                            libc::_exit(126);
                        }
                    }
                    None => {
                        libc::setpgid(0, 0);
                    }
                }
                announce_group(0);
            }
            for (target, source) in self.stdio.iter().enumerate() {
                if let Some(source) = *source {
                    libc::dup2(source, target as libc::c_int);
                }
            }
            if self.stdio.iter().any(Option::is_some) {
                libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
            }
            // Raw system calls: glibc's wrappers would signal the helper's other threads, and a
            // child sharing the helper's memory must not take glibc's locks.
            if let (Some(uid), Some(gid)) = (self.uid, self.gid)
                && (libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) != 0
                    || libc::syscall(libc::SYS_setresgid, gid, gid, gid) != 0
                    || libc::syscall(libc::SYS_setresuid, uid, uid, uid) != 0)
            {
                libc::_exit(126);
            }
            // Without a user change (no root), the capabilities bwrap gave the helper go explicitly.
            libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_CLEAR_ALL,
                0,
                0,
                0,
            );
            let mut header = [0x2008_0522u32, 0]; // _LINUX_CAPABILITY_VERSION_3, this process
            let data = [0u32; 6];
            libc::syscall(libc::SYS_capset, header.as_mut_ptr(), data.as_ptr());
            if !self.filter_inherited && install_filter(&mut self.filter).is_err() {
                let message = b"arena sandbox: cannot install the bot's seccomp filter\n";
                libc::write(2, message.as_ptr().cast(), message.len());
                libc::_exit(126);
            }
            libc::execvp(self.pointers[0], self.pointers.as_ptr());
            let message = b"arena sandbox: cannot run the command\n";
            libc::write(2, message.as_ptr().cast(), message.len());
            libc::_exit(127)
        }
    }
}

/// The child of [`BotExec::spawn`].
extern "C" fn run_child(plan: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `plan` is the BotExec the parent passed, alive while it waits for this exec.
    unsafe { (*plan.cast::<BotExec>()).become_bot() }
}

/// A thread of the helper that already runs under the bot's seccomp filter and starts each game's
/// stream bot, which inherits the filter from it. Installing a filter compiles it (BPF JIT) and
/// changes kernel page permissions: about 35 µs at every exec on the machines measured, as much as
/// a small bot's whole run (a sandbox that serves calls has the filter on its main thread instead:
/// see `helper_loop`).
///
/// A thread, not a process: the helper's `kill(-1)` after each game spares its own thread group,
/// and the bot stays the helper's child (waited for as before). A game's bot must lead a process
/// group of its own, which the filter forbids it to make: the helper's main thread, whose filter
/// allows it, makes it so before the bot's exec ([`Spawner::spawn_leader`]).
struct Spawner {
    requests: std::sync::mpsc::SyncSender<SpawnRequest>,
    started: std::sync::mpsc::Receiver<libc::pid_t>,
}

/// A [`BotExec`] handed to the spawner's thread; the helper waits for the answer, so the plan
/// outlives its use there.
struct SpawnRequest(*mut BotExec);

// SAFETY: the pointer is used by the spawner's thread only while the sending thread waits for the
// answer, and the plan is not touched by the sender meanwhile.
unsafe impl Send for SpawnRequest {}

impl Spawner {
    /// The spawner's thread, its filter installed; `None` if it cannot be made (the bot's processes
    /// then install the filter themselves, started by the helper's main thread).
    fn start() -> Option<Spawner> {
        let (requests, incoming) = std::sync::mpsc::sync_channel::<SpawnRequest>(0);
        let (answers, started) = std::sync::mpsc::sync_channel::<libc::pid_t>(1);
        std::thread::Builder::new()
            .name("arena-spawner".into())
            .spawn(move || {
                // SAFETY: installing a filter on this thread only (no TSYNC).
                let ready = unsafe { install_filter(&mut bot_filter()) }.is_ok();
                if answers.send(if ready { 0 } else { -1 }).is_err() || !ready {
                    return;
                }
                while let Ok(SpawnRequest(plan)) = incoming.recv() {
                    // SAFETY: see `SpawnRequest`: the plan is alive and not used elsewhere.
                    let pid = unsafe { (*plan).spawn() };
                    // SAFETY: as above.
                    if let (true, Some((tell, _))) = (pid < 0, unsafe { (*plan).handshake }) {
                        // No child to tell the main thread its pid: it must not wait for one.
                        // SAFETY: writing to a pipe the plan's owner keeps open.
                        unsafe { libc::write(tell, (-1i32).to_ne_bytes().as_ptr().cast(), 4) };
                    }
                    if answers.send(pid).is_err() {
                        return;
                    }
                }
            })
            .ok()?;
        (started.recv().ok()? == 0).then_some(Spawner { requests, started })
    }

    /// Starts `plan` (with `own_group`) from the spawner's thread, its filter then inherited, and
    /// returns the pid, or a negative number on failure. The child, already filtered, cannot call
    /// `setpgid`: this thread (the helper's main one, whose filter allows it) makes the child lead
    /// its own group between the child's start and its exec, which a parent may do.
    fn spawn_leader(&self, plan: &mut BotExec) -> libc::pid_t {
        let (Ok((told, tell)), Ok((wait, go))) = (pipe(), pipe()) else {
            return -1;
        };
        plan.filter_inherited = true;
        plan.handshake = Some((tell.as_raw_fd(), wait.as_raw_fd()));
        if self.requests.send(SpawnRequest(plan)).is_err() {
            return -1;
        }
        let mut pid = [0u8; 4];
        // The child writes its pid; the spawner's thread writes -1 if there is no child.
        let child = match (&File::from(told)).read_exact(&mut pid) {
            Ok(()) => i32::from_ne_bytes(pid),
            Err(_) => -1,
        };
        // SAFETY: setpgid on a child of this process that has not exec'd yet (it waits for `go`).
        let leads = child > 0 && unsafe { libc::setpgid(child, child) } == 0;
        // A child that cannot lead its group exits (126) instead of running unpausable.
        let _ = (&File::from(go)).write_all(&[u8::from(leads)]);
        let started = self.started.recv().unwrap_or(-1);
        drop((tell, wait));
        started
    }
}

/// Drops to the bot's user and every capability, and execs `argv`; never returns.
///
/// # Safety
/// Only in a single-threaded process (the helper).
unsafe fn become_bot(argv: &[CString], uid: Option<u32>, gid: Option<u32>) -> ! {
    // SAFETY: see the function's contract.
    unsafe { BotExec::new(argv, uid, gid).become_bot() }
}

/// One call in the helper: fork, drop to the bot's user, exec; collect stdout until it exits; kill
/// everything else in the sandbox. Returns the wait status and the stdout kept.
fn helper_call(
    argv: &[CString],
    null: &File,
    uid: Option<u32>,
    gid: Option<u32>,
    filter_inherited: bool,
) -> (i32, Vec<u8>) {
    let Ok((out_read, out_write)) = pipe() else {
        return (127 << 8, Vec::new());
    };
    let mut plan = BotExec::new(argv, uid, gid);
    plan.stdio = [Some(null.as_raw_fd()), Some(out_write.as_raw_fd()), None];
    plan.filter_inherited = filter_inherited;
    let pid = plan.spawn();
    drop(out_write);
    if pid < 0 {
        return (127 << 8, Vec::new());
    }
    let mut out = File::from(out_read);
    let mut kept = Vec::new();
    let mut buffer = [0u8; 8192];
    // Until the pipe closes (the call and whatever inherited its stdout are done) or the call exits;
    // what a straggler still holds open is not waited for.
    // SAFETY: pidfd_open on our own child.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as RawFd;
    let mut status = 0;
    loop {
        let mut fds = [
            libc::pollfd {
                fd: out.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: pidfd,
                events: libc::POLLIN,
                revents: 0,
            },
            // The control pipe or socket: arena sends nothing during a call, so a hang-up there
            // means arena is gone (killed with -9): the call is not left running.
            libc::pollfd {
                fd: 0,
                events: libc::POLLRDHUP,
                revents: 0,
            },
        ];
        // SAFETY: valid pollfds (a negative descriptor is skipped).
        unsafe { libc::poll(fds.as_mut_ptr(), 3, -1) };
        if fds[2].revents & (libc::POLLHUP | libc::POLLRDHUP | libc::POLLERR) != 0 {
            kill_the_rest();
            // SAFETY: ends the helper; the sandbox's init follows it.
            unsafe { libc::_exit(1) };
        }
        if fds[0].revents != 0 {
            match out.read(&mut buffer) {
                Ok(0) | Err(_) => {
                    // SAFETY: waitpid on our own child.
                    unsafe { libc::waitpid(pid, &mut status, 0) };
                    break;
                }
                Ok(n) => {
                    let room = HELPER_STDOUT_CAP.saturating_sub(kept.len()).min(n);
                    kept.extend_from_slice(&buffer[..room]);
                }
            }
        }
        if pidfd >= 0 && fds[1].revents != 0 {
            // SAFETY: waitpid on our own child, which has exited.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            crate::spawn::set_nonblocking(out.as_raw_fd()).ok();
            while let Ok(n) = out.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                let room = HELPER_STDOUT_CAP.saturating_sub(kept.len()).min(n);
                kept.extend_from_slice(&buffer[..room]);
            }
            break;
        }
    }
    if pidfd >= 0 {
        // SAFETY: closing the descriptor we opened.
        unsafe { libc::close(pidfd) };
    }
    // Nothing of the call outlives it.
    kill_the_rest();
    (status, kept)
}
