//! cgroups (v1 or v2): where bot cgroups are made ([`CgroupRoot`]), and the cgroups of one
//! sandboxed process ([`BotCgroups`]): memory, tasks and the CPU set, and what they account (out
//! of memory kills, CPU time, tasks).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::policy::Limits;
use super::sys::MADE;

/// Where bot cgroups are made: under arena's own cgroup, per controller (v1) or once (v2).
#[derive(Clone, Debug)]
pub(super) enum CgroupRoot {
    V1 {
        memory: PathBuf,
        pids: PathBuf,
        cpuset: PathBuf,
        /// CPU accounting (per-bot CPU time), when the controller is mounted.
        cpuacct: Option<PathBuf>,
    },
    V2 {
        base: PathBuf,
    },
}

/// The cgroups of one sandboxed process.
#[derive(Debug)]
pub(super) struct BotCgroups {
    /// Every folder made, removed in reverse.
    dirs: Vec<PathBuf>,
    /// Where the out-of-memory counter is: (file, key).
    oom: (PathBuf, &'static str),
    /// A `cgroup.procs` or `tasks` file counting the processes.
    tasks: PathBuf,
    /// Where the group's CPU time is: v1 `cpuacct.usage` (ns), v2 `cpu.stat` (`usage_usec`).
    cpu: Option<PathBuf>,
    /// That file, opened on first use: it is read twice per answer, and a `pread` of an open file
    /// costs a fraction of an open, read and close (a path walk in the cgroup filesystem).
    cpu_file: std::sync::OnceLock<Option<File>>,
    /// The out-of-memory counter's file, opened on first use: read before and after every call.
    oom_file: std::sync::OnceLock<Option<File>>,
}

fn cgroup_mounts() -> Vec<(String, String, String)> {
    // (mount point, filesystem type, options)
    std::fs::read_to_string("/proc/self/mounts")
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let mut fields = line.split(' ');
            let _source = fields.next()?;
            let point = fields.next()?;
            let kind = fields.next()?;
            let options = fields.next()?;
            (kind == "cgroup" || kind == "cgroup2")
                .then(|| (point.to_string(), kind.to_string(), options.to_string()))
        })
        .collect()
}

/// arena's own cgroup path in a hierarchy (`/proc/self/cgroup`): by controller name, or `""` for v2.
fn own_cgroup(controller: &str) -> Option<String> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let _id = parts.next()?;
        let controllers = parts.next()?;
        let path = parts.next()?;
        let matches = if controller.is_empty() {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == controller)
        };
        matches.then(|| path.to_string())
    })
}

/// Why bots' cgroups cannot be used here; the messages say how to start arena where they can.
#[derive(Debug, thiserror::Error)]
pub(super) enum CgroupError {
    #[error(
        "cgroups: no cgroup v2 hierarchy, and no cgroup v1 controller for {} \
         (mount them, or boot with cgroup v2)",
        lacking.join(", ")
    )]
    NoHierarchy { lacking: Vec<&'static str> },
    #[error(
        "cgroups (v2): the controllers {} are not available in {} (arena's cgroup): \
         run arena where they are delegated, e.g. `systemd-run --user --scope -p \
         Delegate=yes arena ...`",
        lacking.join(", "),
        base.display()
    )]
    NotDelegated {
        lacking: Vec<&'static str>,
        base: PathBuf,
    },
    #[error(
        "cgroups (v2): cannot enable memory, pids and cpuset for sub-groups of {} ({source}); \
         a cgroup with processes cannot have controlled children: start arena in a \
         cgroup of its own with those controllers delegated, e.g. `systemd-run --scope \
         -p Delegate=yes arena ...`",
        base.display()
    )]
    CannotEnable {
        base: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "cgroups: cannot make {} ({source}): arena needs to be root, or to own a delegated cgroup",
        dir.display()
    )]
    CannotMake {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {text:?} to {}: {source}", path.display())]
    Write {
        path: PathBuf,
        text: String,
        source: std::io::Error,
    },
}

fn write_file(path: &Path, text: &str) -> Result<(), CgroupError> {
    std::fs::write(path, text).map_err(|source| CgroupError::Write {
        path: path.to_path_buf(),
        text: text.to_string(),
        source,
    })
}

impl CgroupRoot {
    pub(super) fn find() -> Result<CgroupRoot, CgroupError> {
        let mounts = cgroup_mounts();
        let v1 = |controller: &str| -> Option<PathBuf> {
            let (point, _, _) = mounts.iter().find(|(_, kind, options)| {
                kind == "cgroup" && options.split(',').any(|o| o == controller)
            })?;
            let own = own_cgroup(controller)?;
            Some(Path::new(point).join(own.trim_start_matches('/')))
        };
        let (memory, pids, cpuset) = (v1("memory"), v1("pids"), v1("cpuset"));
        let root = if let (Some(memory), Some(pids), Some(cpuset)) = (&memory, &pids, &cpuset) {
            CgroupRoot::V1 {
                memory: memory.clone(),
                pids: pids.clone(),
                cpuset: cpuset.clone(),
                cpuacct: v1("cpuacct"),
            }
        } else {
            let Some((point, _, _)) = mounts.iter().find(|(_, kind, _)| kind == "cgroup2") else {
                let lacking: Vec<&'static str> =
                    [("memory", &memory), ("pids", &pids), ("cpuset", &cpuset)]
                        .iter()
                        .filter(|(_, found)| found.is_none())
                        .map(|(name, _)| *name)
                        .collect();
                return Err(CgroupError::NoHierarchy { lacking });
            };
            let own = own_cgroup("").unwrap_or_else(|| "/".into());
            let base = Path::new(point).join(own.trim_start_matches('/'));
            let available =
                std::fs::read_to_string(base.join("cgroup.controllers")).unwrap_or_default();
            let lacking: Vec<&'static str> = ["memory", "pids", "cpuset"]
                .into_iter()
                .filter(|c| !available.split_whitespace().any(|a| a == *c))
                .collect();
            if !lacking.is_empty() {
                return Err(CgroupError::NotDelegated { lacking, base });
            }
            let enabled =
                std::fs::read_to_string(base.join("cgroup.subtree_control")).unwrap_or_default();
            if !["memory", "pids", "cpuset"]
                .iter()
                .all(|c| enabled.split_whitespace().any(|e| e == *c))
                && let Err(source) =
                    std::fs::write(base.join("cgroup.subtree_control"), "+memory +pids +cpuset")
            {
                return Err(CgroupError::CannotEnable { base, source });
            }
            CgroupRoot::V2 { base }
        };
        // Prove a bot cgroup can be made and limited here.
        let probe = root.create(&Limits::default(), None)?;
        probe.remove();
        Ok(root)
    }

    fn bases(&self) -> Vec<&Path> {
        match self {
            CgroupRoot::V1 {
                memory,
                pids,
                cpuset,
                cpuacct,
            } => {
                let mut bases: Vec<&Path> = vec![memory, pids, cpuset];
                bases.extend(cpuacct.as_deref());
                bases
            }
            CgroupRoot::V2 { base } => vec![base],
        }
    }

    /// Removes the bot cgroups left by arena processes that no longer exist (killed with -9; a pid
    /// used again by a later process is told apart by its start time), killing first whatever of
    /// their sandboxes still runs in them.
    pub(super) fn sweep_stale(&self) {
        for base in self.bases() {
            let Ok(entries) = std::fs::read_dir(base) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(pid) = name
                    .strip_prefix("arena-")
                    .and_then(|rest| rest.split('-').next())
                    .and_then(|pid| pid.parse::<u32>().ok())
                else {
                    continue;
                };
                let made = entry.metadata().and_then(|meta| meta.modified());
                if made.is_ok_and(|made| crate::folders::owner_gone(pid, made)) {
                    kill_and_remove(&entry.path());
                }
            }
        }
    }

    pub(super) fn create(
        &self,
        limits: &Limits,
        cpu: Option<usize>,
    ) -> Result<BotCgroups, CgroupError> {
        let name = format!(
            "arena-{}-{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed)
        );
        let mut made = BotCgroups {
            dirs: Vec::new(),
            oom: (PathBuf::new(), "oom_kill"),
            tasks: PathBuf::new(),
            cpu: None,
            cpu_file: std::sync::OnceLock::new(),
            oom_file: std::sync::OnceLock::new(),
        };
        let mkdir = |made: &mut BotCgroups, base: &Path| -> Result<PathBuf, CgroupError> {
            let dir = base.join(&name);
            // A cgroup of this name is left by a killed earlier process with this pid: its
            // processes are gone, so it is empty and can be removed.
            let made_dir = std::fs::create_dir(&dir).or_else(|e| {
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    std::fs::remove_dir(&dir).and_then(|()| std::fs::create_dir(&dir))
                } else {
                    Err(e)
                }
            });
            made_dir.map_err(|source| CgroupError::CannotMake {
                dir: dir.clone(),
                source,
            })?;
            made.dirs.push(dir.clone());
            Ok(dir)
        };
        let result = (|| -> Result<(), CgroupError> {
            match self {
                CgroupRoot::V1 {
                    memory,
                    pids,
                    cpuset,
                    cpuacct,
                } => {
                    let dir = mkdir(&mut made, memory)?;
                    if let Some(bytes) = limits.memory {
                        write_file(&dir.join("memory.limit_in_bytes"), &bytes.to_string())?;
                        // Swap too, where the kernel accounts it (not every kernel does).
                        let swap = dir.join("memory.memsw.limit_in_bytes");
                        if swap.exists() {
                            write_file(&swap, &bytes.to_string())?;
                        }
                    }
                    made.oom = (dir.join("memory.oom_control"), "oom_kill");
                    let dir = mkdir(&mut made, pids)?;
                    if let Some(tasks) = limits.tasks {
                        write_file(&dir.join("pids.max"), &tasks.to_string())?;
                    }
                    made.tasks = dir.join("cgroup.procs");
                    let dir = mkdir(&mut made, cpuset)?;
                    // A v1 cpuset starts empty: both CPUs and memory nodes must be given.
                    let read = |source| CgroupError::Read {
                        path: cpuset.clone(),
                        source,
                    };
                    let mems = std::fs::read_to_string(cpuset.join("cpuset.mems")).map_err(read)?;
                    write_file(&dir.join("cpuset.mems"), mems.trim())?;
                    let cpus = match cpu {
                        Some(cpu) => cpu.to_string(),
                        None => std::fs::read_to_string(cpuset.join("cpuset.cpus"))
                            .map_err(read)?
                            .trim()
                            .to_string(),
                    };
                    write_file(&dir.join("cpuset.cpus"), &cpus)?;
                    if let Some(cpuacct) = cpuacct {
                        let dir = mkdir(&mut made, cpuacct)?;
                        made.cpu = Some(dir.join("cpuacct.usage"));
                    }
                }
                CgroupRoot::V2 { base } => {
                    let dir = mkdir(&mut made, base)?;
                    if let Some(bytes) = limits.memory {
                        write_file(&dir.join("memory.max"), &bytes.to_string())?;
                        let swap = dir.join("memory.swap.max");
                        if swap.exists() {
                            write_file(&swap, "0")?;
                        }
                    }
                    if let Some(tasks) = limits.tasks {
                        write_file(&dir.join("pids.max"), &tasks.to_string())?;
                    }
                    if let Some(cpu) = cpu {
                        write_file(&dir.join("cpuset.cpus"), &cpu.to_string())?;
                    }
                    made.oom = (dir.join("memory.events"), "oom_kill");
                    made.tasks = dir.join("cgroup.procs");
                    // Every v2 cgroup accounts its CPU time, with or without the cpu controller.
                    made.cpu = Some(dir.join("cpu.stat"));
                }
            }
            Ok(())
        })();
        match result {
            Ok(()) => Ok(made),
            Err(e) => {
                made.remove();
                Err(e)
            }
        }
    }
}

impl BotCgroups {
    pub(super) fn attach(&self, pid: i32) -> Result<(), CgroupError> {
        for dir in &self.dirs {
            write_file(&dir.join("cgroup.procs"), &pid.to_string())?;
        }
        Ok(())
    }

    pub(super) fn oom_kills(&self) -> u64 {
        let (path, key) = &self.oom;
        read_whole(&self.oom_file, path)
            .and_then(|text| {
                text.lines().find_map(|line| {
                    line.strip_prefix(key)
                        .and_then(|rest| rest.trim().parse::<u64>().ok())
                })
            })
            .unwrap_or(0)
    }

    /// CPU time used by every process that ever ran in the group (exited ones included).
    pub(super) fn cpu_time(&self) -> Option<Duration> {
        let path = self.cpu.as_ref()?;
        let text = read_whole(&self.cpu_file, path)?;
        if path.ends_with("cpuacct.usage") {
            text.trim().parse::<u64>().ok().map(Duration::from_nanos)
        } else {
            text.lines().find_map(|line| {
                line.strip_prefix("usage_usec ")
                    .and_then(|n| n.trim().parse::<u64>().ok())
                    .map(Duration::from_micros)
            })
        }
    }

    pub(super) fn tasks(&self) -> Option<usize> {
        std::fs::read_to_string(&self.tasks)
            .ok()
            .map(|text| text.lines().count())
    }

    /// Removes the folders; killed processes leave their cgroup a moment after they die. True
    /// when all are gone (so no process of the bot is left).
    pub(super) fn remove(self) -> bool {
        let until = Instant::now() + Duration::from_secs(2);
        for dir in self.dirs.iter().rev() {
            let mut pause = Duration::from_micros(100);
            while std::fs::remove_dir(dir).is_err() && dir.exists() && Instant::now() < until {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
        }
        self.dirs.iter().all(|dir| !dir.exists())
    }
}

/// The text of a short cgroup file (under 1 KiB: a counter, `cpu.stat`, `memory.oom_control`)
/// through a descriptor `kept` opens on first use: the kernel makes the text again at every read at
/// offset 0, and a `pread` costs a fraction of an open, read and close (a path walk in the cgroup
/// filesystem).
fn read_whole(kept: &std::sync::OnceLock<Option<File>>, path: &Path) -> Option<String> {
    use std::os::unix::fs::FileExt;
    let file = kept.get_or_init(|| File::open(path).ok()).as_ref()?;
    let mut buffer = [0u8; 1024];
    let length = file.read_at(&mut buffer, 0).ok()?;
    String::from_utf8(buffer[..length].to_vec()).ok()
}

/// Kills every process in the cgroup `dir` (a dead arena's sandbox) and removes it once empty.
fn kill_and_remove(dir: &Path) {
    for _ in 0..50 {
        let procs = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
        let pids: Vec<i32> = procs
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        if pids.is_empty() && std::fs::remove_dir(dir).is_ok() {
            return;
        }
        for pid in pids {
            // SAFETY: kill(2); the process is in the dead arena's cgroup, nothing else's.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}
