//! What the benchmarks of the `arena` command share (each bench uses a part).
#![allow(dead_code)]

/// The CPU time of a command's whole tree, as the speed guard measures it.
#[path = "../../tests/common/cpu_group.rs"]
pub mod cpu_group;

/// CPU seconds (user + system) of this process's waited-for children so far: around a command run
/// to its end, the CPU time of its whole process tree (every process of the tree is reaped by its
/// parent, so its time reaches the command's, the sandboxed bots' included).
pub fn children_cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
