//! The seccomp filter: the program bwrap installs on the sandbox's init (through `--seccomp`) and
//! the one the helper installs on each bot it starts (see `helper`).

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{FromRawFd, OwnedFd};

/// A seccomp program (classic BPF, as bwrap's `--seccomp` takes it) in a memory file (see
/// [`seccomp_program`] for what it refuses). With `for_helper`, `setpgid` is allowed (the helper's
/// only use of it: see `helper_game`).
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

/// Refused with EPERM: what would let a process leave the bot's group (and escape pausing), state
/// that outlives the processes that made it, and the keyrings, shared by every process of a user
/// and kept by the kernel after they are all gone (a channel between bots, games and runs).
const REFUSED: &[libc::c_long] = &[
    libc::SYS_setsid,
    // POSIX message queues outlive their processes in the IPC namespace and cannot be listed
    // without mounting mqueue: refused, so a reused sandbox carries nothing between games.
    libc::SYS_mq_open,
    libc::SYS_add_key,
    libc::SYS_keyctl,
    libc::SYS_request_key,
];

/// Refused with ENOSYS, as if the kernel lacked them, so that runtimes take their fallback:
/// `clone3` (glibc then uses `clone`, whose flags the filter can read, where `clone3` passes them
/// in memory), io_uring (libuv, Node's, falls back to its thread pool), and kernel surface where
/// escapes have been found that no bot needs (`userfaultfd`, `bpf`, `perf_event_open`).
const UNAVAILABLE: &[libc::c_long] = &[
    libc::SYS_clone3,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_userfaultfd,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
];

/// Where a jump of the program goes (resolved by [`assemble`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Label {
    Deny,
    Unavailable,
    Ioctl,
    NamespaceFlags,
}

/// One instruction of the program as written, its jumps to labels (`None`: the next instruction).
#[derive(Clone, Copy)]
enum Op {
    /// Loads the 32-bit word at this offset of `seccomp_data`: the number at 0, the architecture at
    /// 4, the arguments from 16, 8 bytes each, the low half first on little-endian machines (both
    /// supported architectures are).
    Load(u32),
    /// A conditional jump: `code` (`BPF_JEQ`, `BPF_JGE`, `BPF_JSET`) against `value`.
    Jump(u16, u32, Option<Label>, Option<Label>),
    Return(u32),
    /// Where a label's jumps land (no instruction).
    Here(Label),
}

const EQUAL: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const AT_LEAST: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const ANY_BIT: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K

/// The bot's program as `(code, jump if true, jump if false, k)` instructions. It refuses `setsid`
/// and `setpgid` (with `allow_setpgid`, for a resident helper and never a bot, `setpgid` is let
/// through), [`REFUSED`] and [`UNAVAILABLE`], new user namespaces (`unshare` or `clone` with
/// `CLONE_NEWUSER`: the only namespace an unprivileged process may make, and with it all the
/// others, mounts included), the terminal input injection ioctl `TIOCSTI`, and system calls of a
/// foreign ABI (32-bit or x32 entry points, whose numbers differ).
fn seccomp_program(allow_setpgid: bool) -> Vec<(u16, u8, u8, u32)> {
    use Label::*;
    const ALLOW: u32 = 0x7fff_0000;
    const EPERM: u32 = 0x0005_0000 | libc::EPERM as u32; // SECCOMP_RET_ERRNO
    const ENOSYS: u32 = 0x0005_0000 | libc::ENOSYS as u32;
    let nr = |call: libc::c_long| call as u32;
    let is = |call: libc::c_long, label: Label| Op::Jump(EQUAL, nr(call), Some(label), None);
    let mut ops = vec![
        Op::Load(4),
        Op::Jump(EQUAL, AUDIT_ARCH, None, Some(Unavailable)),
        Op::Load(0),
        // x32 system calls are numbered from 0x40000000 on x86_64.
        Op::Jump(AT_LEAST, 0x4000_0000, Some(Deny), None),
    ];
    ops.extend(REFUSED.iter().map(|&call| is(call, Deny)));
    if !allow_setpgid {
        ops.push(is(libc::SYS_setpgid, Deny));
    }
    ops.extend(UNAVAILABLE.iter().map(|&call| is(call, Unavailable)));
    ops.extend([
        is(libc::SYS_ioctl, Ioctl),
        is(libc::SYS_unshare, NamespaceFlags),
        is(libc::SYS_clone, NamespaceFlags),
        Op::Return(ALLOW),
        Op::Here(Ioctl),
        Op::Load(16 + 8),
        Op::Jump(EQUAL, libc::TIOCSTI as u32, Some(Deny), None),
        Op::Return(ALLOW),
        // The flags are the first argument of both `unshare` and `clone`.
        Op::Here(NamespaceFlags),
        Op::Load(16),
        Op::Jump(ANY_BIT, libc::CLONE_NEWUSER as u32, Some(Deny), None),
        Op::Return(ALLOW),
        Op::Here(Deny),
        Op::Return(EPERM),
        Op::Here(Unavailable),
        Op::Return(ENOSYS),
    ]);
    assemble(&ops)
}

/// Resolves the labels of `ops` into relative jumps.
fn assemble(ops: &[Op]) -> Vec<(u16, u8, u8, u32)> {
    let mut at = Vec::new();
    let mut index = 0usize;
    for op in ops {
        match op {
            Op::Here(label) => at.push((*label, index)),
            _ => index += 1,
        }
    }
    let target = |from: usize, label: Option<Label>| -> u8 {
        let Some(label) = label else {
            return 0;
        };
        let to = at
            .iter()
            .find(|(l, _)| *l == label)
            .map(|(_, to)| *to)
            .expect("every label of the program is placed");
        u8::try_from(to - from - 1).expect("the program's jumps are short")
    };
    let mut program = Vec::new();
    for op in ops {
        let here = program.len();
        match *op {
            Op::Load(offset) => program.push((0x20, 0, 0, offset)), // BPF_LD | BPF_W | BPF_ABS
            Op::Jump(code, value, yes, no) => {
                program.push((code, target(here, yes), target(here, no), value))
            }
            Op::Return(value) => program.push((0x06, 0, 0, value)), // BPF_RET | BPF_K
            Op::Here(_) => {}
        }
    }
    program
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
        for allow_setpgid in [false, true] {
            let program = seccomp_program(allow_setpgid);
            for (at, (code, jt, jf, _)) in program.iter().enumerate() {
                if code & 0x07 == 0x05 {
                    assert!(at + 1 + (*jt as usize) < program.len());
                    assert!(at + 1 + (*jf as usize) < program.len());
                }
            }
            assert_eq!(program.last().map(|i| i.3 & 0xffff_0000), Some(0x0005_0000));
        }
    }
}
