//! The seccomp filter: the program bwrap installs on the sandbox's init (through `--seccomp`) and
//! the one the helper installs on each bot it starts (see `helper`).

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{FromRawFd, OwnedFd};

/// A seccomp program (classic BPF, as bwrap's `--seccomp` takes it) in a memory file: refuses
/// `setsid` and `setpgid` (a process that left the bot's group would escape pausing), `mq_open`, the terminal
/// input injection ioctl `TIOCSTI`, and syscalls of a foreign ABI (32-bit or x32 entry points, whose
/// numbers differ).
/// With `for_helper`, `setpgid` is allowed (the helper's only use of it: see `helper_game`).
pub(super) fn seccomp_memfd(for_helper: bool) -> io::Result<OwnedFd> {
    let program = seccomp_program(for_helper);
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for (code, jt, jf, k) in program {
        bytes.extend_from_slice(&code.to_ne_bytes());
        bytes.push(jt);
        bytes.push(jf);
        bytes.extend_from_slice(&k.to_ne_bytes());
    }
    // SAFETY: memfd_create with a static name.
    let fd = unsafe { libc::memfd_create(c"arena-seccomp".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor.
    let mut file = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    file.write_all(&bytes)?;
    std::io::Seek::seek(&mut file, io::SeekFrom::Start(0))?;
    Ok(file.into())
}

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

/// `(code, jump if true, jump if false, k)` instructions. With `allow_setpgid`, `setpgid` is
/// let through (for a resident helper, never for a bot).
fn seccomp_program(allow_setpgid: bool) -> Vec<(u16, u8, u8, u32)> {
    const LD_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JEQ: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const JGE: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const RET: u16 = 0x06; // BPF_RET | BPF_K
    const ALLOW: u32 = 0x7fff_0000;
    const DENY: u32 = 0x0005_0000 | libc::EPERM as u32; // SECCOMP_RET_ERRNO
    const FOREIGN: u32 = 0x0005_0000 | libc::ENOSYS as u32;
    // seccomp_data: nr at 0, arch at 4, args at 16 (8 bytes each; the low half first on little
    // endian machines, which both supported architectures are).
    vec![
        (LD_ABS, 0, 0, 4),
        (JEQ, 1, 0, AUDIT_ARCH),
        (RET, 0, 0, FOREIGN),
        (LD_ABS, 0, 0, 0),
        // x32 system calls are numbered from 0x40000000 on x86_64.
        (JGE, 7, 0, 0x4000_0000),
        (JEQ, 6, 0, libc::SYS_setsid as u32),
        // A syscall number never used: the rule then matches nothing.
        (
            JEQ,
            5,
            0,
            if allow_setpgid {
                u32::MAX
            } else {
                libc::SYS_setpgid as u32
            },
        ),
        // POSIX message queues outlive their processes in the IPC namespace and cannot be listed
        // without mounting mqueue: refused, so a reused sandbox carries nothing between games.
        (JEQ, 4, 0, libc::SYS_mq_open as u32),
        (JEQ, 0, 2, libc::SYS_ioctl as u32),
        (LD_ABS, 0, 0, 16 + 8),
        (JEQ, 1, 0, libc::TIOCSTI as u32),
        (RET, 0, 0, ALLOW),
        (RET, 0, 0, DENY),
    ]
}

/// The bot's seccomp program, ready for `PR_SET_SECCOMP`.
pub(super) fn bot_filter() -> Vec<libc::sock_filter> {
    seccomp_program(false)
        .into_iter()
        .map(|(code, jt, jf, k)| libc::sock_filter { code, jt, jf, k })
        .collect()
}

/// Sets no-new-privileges and installs `filter` on the calling thread (stacked on what it has).
///
/// # Safety
/// System calls only: callable in a child that shares the helper's memory.
pub(super) unsafe fn install_filter(filter: &mut [libc::sock_filter]) -> Result<(), ()> {
    let program = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_mut_ptr(),
    };
    // SAFETY: prctl on the calling thread with a program that lives across the call.
    let installed = unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
            && libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &program as *const libc::sock_fprog,
            ) == 0
    };
    if installed { Ok(()) } else { Err(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seccomp_program_jumps_stay_inside_it() {
        let program = seccomp_program(false);
        for (at, (code, jt, jf, _)) in program.iter().enumerate() {
            if code & 0x07 == 0x05 {
                assert!(at + 1 + (*jt as usize) < program.len());
                assert!(at + 1 + (*jf as usize) < program.len());
            }
        }
        assert_eq!(program.last().map(|i| i.3 & 0xffff_0000), Some(0x0005_0000));
    }
}
