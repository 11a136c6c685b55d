//! CPU time of a command's whole process tree, read from a cgroup made for it: the speed guard's
//! and the benchmarks' measure (a sandboxed bot's time may never reach its command's
//! `RUSAGE_CHILDREN`: the sandbox's init is killed, not waited for by its children's end).

use std::path::{Path, PathBuf};
use std::process::Command;

/// A cgroup of this test's own, in which every process started by `command` and all their
/// descendants count (the sandbox's own groups nest inside it): their CPU time is read whole, with
/// no process missed for not having been waited for. cgroup v1's `cpuacct` or v2.
pub struct CpuGroup {
    dir: PathBuf,
    v2: bool,
}

impl CpuGroup {
    pub fn new(label: &str) -> CpuGroup {
        let own = |controller: &str| -> Option<String> {
            let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
            text.lines().find_map(|line| {
                let mut parts = line.splitn(3, ':');
                let (_, names, path) = (parts.next()?, parts.next()?, parts.next()?);
                (names.split(',').any(|n| n == controller)).then(|| path.to_string())
            })
        };
        let name = format!("arena-speed-{label}-{}", std::process::id());
        let (dir, v2) = match own("cpuacct") {
            Some(path) if Path::new("/sys/fs/cgroup/cpuacct/cpuacct.usage").exists() => (
                Path::new("/sys/fs/cgroup/cpuacct")
                    .join(path.trim_start_matches('/'))
                    .join(name),
                false,
            ),
            _ => {
                let path = own("").unwrap_or_default();
                (
                    Path::new("/sys/fs/cgroup")
                        .join(path.trim_start_matches('/'))
                        .join(name),
                    true,
                )
            }
        };
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| {
            panic!(
                "CPU time is measured in a cgroup of its own and {} could not be made \
                 ({e}): run as root (scripts/test does on CI)",
                dir.display()
            )
        });
        CpuGroup { dir, v2 }
    }

    /// Makes `command`'s process join the group before it runs anything.
    pub fn enter(&self, command: &mut Command) {
        use std::os::unix::process::CommandExt;
        let procs = self.dir.join("cgroup.procs");
        // SAFETY: the closure only opens and writes a file between fork and exec.
        unsafe {
            command.pre_exec(move || std::fs::write(&procs, b"0"));
        }
    }

    /// CPU seconds of everything that ran in the group.
    pub fn seconds(&self) -> f64 {
        if self.v2 {
            let stat = std::fs::read_to_string(self.dir.join("cpu.stat")).expect("cpu.stat");
            let usec: f64 = stat
                .lines()
                .find_map(|l| l.strip_prefix("usage_usec "))
                .and_then(|v| v.trim().parse().ok())
                .expect("usage_usec");
            usec / 1e6
        } else {
            let ns: f64 = std::fs::read_to_string(self.dir.join("cpuacct.usage"))
                .expect("cpuacct.usage")
                .trim()
                .parse()
                .expect("a count of nanoseconds");
            ns / 1e9
        }
    }
}

impl Drop for CpuGroup {
    fn drop(&mut self) {
        // Empty by now (every process of the group has ended); nested groups first.
        let mut dirs = vec![self.dir.clone()];
        let mut index = 0;
        while index < dirs.len() {
            for entry in std::fs::read_dir(&dirs[index])
                .into_iter()
                .flatten()
                .flatten()
            {
                if entry.path().is_dir() {
                    dirs.push(entry.path());
                }
            }
            index += 1;
        }
        for dir in dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}
