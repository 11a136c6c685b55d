//! Operating-system plumbing the sandbox's modules share, with no knowledge of the sandbox: pipes
//! and sockets, blocking descriptors, waiting for a child, `posix_spawn` with exact descriptors,
//! reading what a pipe holds, finding programs, changing a tree's owner, and unique names.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

pub(super) static MADE: AtomicU64 = AtomicU64::new(0);

/// A new, empty scratch folder `arena-sandbox-PID-N` in the temporary directory. A folder of that
/// name may be left by an earlier process that had this pid and was killed (kill -9 leaves its
/// scratch folders): the next number is taken then, never the leftover.
pub(super) fn fresh_scratch_dir() -> io::Result<PathBuf> {
    loop {
        let dir = std::env::temp_dir().join(format!(
            "arena-sandbox-{}-{}",
            std::process::id(),
            MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// A connected pair of Unix stream sockets, both close-on-exec.
pub(super) fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: socketpair fills two descriptors on success.
    if unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fresh descriptors that nothing else owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// A pipe, both ends close-on-exec: `(read, write)`.
pub(super) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills two descriptors on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fresh descriptors that nothing else owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

pub(super) fn cstring(text: impl AsRef<OsStr>) -> io::Result<CString> {
    CString::new(text.as_ref().as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a NUL byte in {:?}", text.as_ref()),
        )
    })
}

/// Makes a descriptor the caller owns blocking.
pub(crate) fn set_blocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Waits for a child and returns its raw wait status.
pub fn wait_pid(pid: i32) -> io::Result<i32> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid on our own child with a valid status pointer.
        let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
        if rc == pid {
            return Ok(status);
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// `posix_spawn` of `program` with `fds[i]` as descriptor `i` in the child and nothing else open, in
/// a new process group, with default signal handling. No `fork` of arena's address space.
pub(super) fn spawn_raw(
    program: &CString,
    argv: &[CString],
    envp: &[CString],
    fds: &[RawFd],
) -> io::Result<i32> {
    // Sources are first copied above every target, so that no dup2 overwrites a later source and none
    // is a same-number dup2 (which would keep close-on-exec set).
    let high: Vec<OwnedFd> = fds
        .iter()
        .map(|&fd| {
            // SAFETY: F_DUPFD_CLOEXEC on a descriptor we own returns a fresh one.
            let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 64) };
            if copy < 0 {
                Err(io::Error::last_os_error())
            } else {
                // SAFETY: fresh descriptor.
                Ok(unsafe { OwnedFd::from_raw_fd(copy) })
            }
        })
        .collect::<io::Result<_>>()?;
    let mut argv_p: Vec<*mut libc::c_char> = argv.iter().map(|a| a.as_ptr() as *mut _).collect();
    argv_p.push(std::ptr::null_mut());
    let mut envp_p: Vec<*mut libc::c_char> = envp.iter().map(|a| a.as_ptr() as *mut _).collect();
    envp_p.push(std::ptr::null_mut());
    // SAFETY: the attribute and file-action objects are initialised before use and destroyed after;
    // every pointer passed outlives the call.
    unsafe {
        let mut actions: libc::posix_spawn_file_actions_t = std::mem::zeroed();
        let mut attributes: libc::posix_spawnattr_t = std::mem::zeroed();
        libc::posix_spawn_file_actions_init(&mut actions);
        libc::posix_spawnattr_init(&mut attributes);
        let mut result = 0;
        for (target, source) in high.iter().enumerate() {
            if result == 0 {
                result = libc::posix_spawn_file_actions_adddup2(
                    &mut actions,
                    source.as_raw_fd(),
                    target as libc::c_int,
                );
            }
        }
        if result == 0 {
            result = libc::posix_spawn_file_actions_addclosefrom_np(&mut actions, fds.len() as i32);
        }
        let mut default_signals: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut default_signals);
        // Dispositions arena (or whoever started it) set to "ignore" would survive the exec.
        for signal in [
            libc::SIGPIPE,
            libc::SIGHUP,
            libc::SIGINT,
            libc::SIGQUIT,
            libc::SIGTERM,
            libc::SIGUSR1,
            libc::SIGUSR2,
            libc::SIGALRM,
            libc::SIGCHLD,
            libc::SIGXFSZ,
            libc::SIGXCPU,
            libc::SIGTSTP,
            libc::SIGTTIN,
            libc::SIGTTOU,
        ] {
            libc::sigaddset(&mut default_signals, signal);
        }
        let mut no_mask: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut no_mask);
        if result == 0 {
            result = libc::posix_spawnattr_setsigdefault(&mut attributes, &default_signals);
        }
        if result == 0 {
            result = libc::posix_spawnattr_setsigmask(&mut attributes, &no_mask);
        }
        if result == 0 {
            result = libc::posix_spawnattr_setpgroup(&mut attributes, 0);
        }
        if result == 0 {
            result = libc::posix_spawnattr_setflags(
                &mut attributes,
                (libc::POSIX_SPAWN_SETPGROUP
                    | libc::POSIX_SPAWN_SETSIGDEF
                    | libc::POSIX_SPAWN_SETSIGMASK) as libc::c_short,
            );
        }
        let mut pid: libc::pid_t = 0;
        if result == 0 {
            result = libc::posix_spawn(
                &mut pid,
                program.as_ptr(),
                &actions,
                &attributes,
                argv_p.as_ptr(),
                envp_p.as_ptr(),
            );
        }
        libc::posix_spawn_file_actions_destroy(&mut actions);
        libc::posix_spawnattr_destroy(&mut attributes);
        if result != 0 {
            return Err(io::Error::from_raw_os_error(result));
        }
        Ok(pid)
    }
}

pub(super) fn find_on_path(program: &str) -> Option<PathBuf> {
    find_in(&std::env::var_os("PATH")?, program)
}

pub(super) fn find_in(path: impl AsRef<OsStr>, program: &str) -> Option<PathBuf> {
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            std::fs::metadata(candidate).is_ok_and(|m| {
                m.is_file()
                    && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
            })
        })
}

/// Copies the entries of the folder `from` into the folder `into` as files a bot could have made
/// are copied ([`crate::folders::copy_entries_with`]): regular files never through a link, links as
/// links, folders with their permissions; a FIFO, socket or device is left out rather than
/// blocking or streaming.
pub(super) fn copy_entries(from: &Path, into: &Path) -> io::Result<()> {
    let how = crate::folders::TreeCopy {
        skip_special: true,
        ..Default::default()
    };
    crate::folders::copy_entries_with(from, into, how)
}

pub(super) fn chown_tree(path: &Path, uid: u32, gid: u32) -> io::Result<()> {
    std::os::unix::fs::lchown(path, Some(uid), Some(gid))?;
    if std::fs::symlink_metadata(path)?.is_dir() {
        for entry in std::fs::read_dir(path)? {
            chown_tree(&entry?.path(), uid, gid)?;
        }
    }
    Ok(())
}

/// Reads what `file` holds now into `into` (kept up to `cap`); false at end of file or on an error.
pub fn read_available(file: Option<&mut File>, into: &mut Vec<u8>, cap: usize) -> bool {
    let Some(file) = file else {
        return true;
    };
    let mut buffer = [0u8; 8192];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => return false,
            Ok(n) => {
                let room = cap.saturating_sub(into.len()).min(n);
                into.extend_from_slice(&buffer[..room]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(_) => return false,
        }
    }
}
