//! The users bots run as when arena is root: a range of uids arena owns ([`Users`], checked at
//! start), one leased to each running sandbox ([`UidLease`]), so that what the kernel keeps per
//! user (keyrings, inotify instances, the process count, who may signal or trace whom) is per bot.
//!
//! A uid is leased by locking its file in [`LOCK_DIR`] (`flock`, released by the kernel when the
//! lease's descriptor closes, even when arena is killed): arena processes on one machine (two test
//! suites, a contest's workers) never hand out the same uid at once.

use std::collections::BTreeSet;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::policy::UidRange;

/// Where the lock files of the uids live (only root reads or writes it: no bot sees `/run`).
pub(super) const LOCK_DIR: &str = "/run/arena/uids";

/// The range of uids of a sandbox configuration, checked, and which of them to hand out.
#[derive(Debug)]
pub(super) struct Users {
    range: UidRange,
    dir: PathBuf,
    /// Uids of the range that a process outside any arena ran as at start (a lock nobody held):
    /// never handed out; their locks are held for this configuration's life, so that other arena
    /// processes skip them too.
    foreign: BTreeSet<u32>,
    _quarantine: Vec<File>,
    /// Where the next search starts (spread by pid, so that arena processes started together do
    /// not all try the same uids first).
    next: AtomicU32,
}

/// One uid, the sandbox's until this is dropped (once nothing of the sandbox runs any more).
#[derive(Debug)]
pub(super) struct UidLease {
    pub(super) uid: u32,
    lock: File,
}

impl UidLease {
    /// Keeps the uid from every other sandbox for the rest of this process's life: for a sandbox
    /// whose processes could not be seen to end.
    pub(super) fn keep_forever(self) {
        std::mem::forget(self.lock);
    }
}

impl Users {
    /// Checks `range` (no user or group of `/etc/passwd` or `/etc/group` in it) and finds which of
    /// its uids a process runs as that no arena leased; `Err` says what is wrong and what to do.
    pub(super) fn check(range: UidRange) -> Result<Users, String> {
        if range.count == 0 {
            return Err("sandbox users: the bots' range of uids is empty (--sandbox-uids)".into());
        }
        for (file, kind) in [("/etc/passwd", "user"), ("/etc/group", "group")] {
            let Ok(text) = std::fs::read_to_string(file) else {
                continue;
            };
            for line in text.lines() {
                let mut fields = line.split(':');
                let (Some(name), Some(id)) = (fields.next(), fields.nth(1)) else {
                    continue;
                };
                if let Ok(id) = id.parse::<u32>()
                    && range.contains(id)
                {
                    return Err(format!(
                        "sandbox users: the {kind} {name} of {file} has the id {id}, inside the \
                         bots' range {range} (--sandbox-uids): choose a range that no user or \
                         group has"
                    ));
                }
            }
        }
        let dir = PathBuf::from(LOCK_DIR);
        std::fs::create_dir_all(&dir).map_err(|e| {
            format!(
                "sandbox users: cannot make {} ({e}): arena needs it to share the bots' uids \
                 with other arena processes",
                dir.display()
            )
        })?;
        let mut users = Users {
            range,
            dir,
            foreign: BTreeSet::new(),
            _quarantine: Vec::new(),
            next: AtomicU32::new(std::process::id().wrapping_mul(2_654_435_761) % range.count),
        };
        for uid in uids_running(range) {
            // A uid whose lock an arena holds is one of its sandboxes'; any other is not ours.
            if let Ok(Some(lock)) = try_lock(&users.dir, uid) {
                users.foreign.insert(uid);
                users._quarantine.push(lock);
            }
        }
        Ok(users)
    }

    /// A uid for a new sandbox: the first of the range, from where the last search ended, that no
    /// arena process holds and no foreign process runs as.
    pub(super) fn lease(&self) -> io::Result<UidLease> {
        let count = self.range.count;
        let start = self.next.load(Ordering::Relaxed);
        for step in 0..count {
            let offset = (start.wrapping_add(step)) % count;
            let uid = self.range.first + offset;
            if self.foreign.contains(&uid) {
                continue;
            }
            if let Some(lock) = try_lock(&self.dir, uid)? {
                self.next
                    .store(offset.wrapping_add(1) % count, Ordering::Relaxed);
                return Ok(UidLease { uid, lock });
            }
        }
        Err(io::Error::other(format!(
            "every uid of the bots' range {} is in use by a running sandbox (--sandbox-uids): \
             give a larger range",
            self.range
        )))
    }
}

/// The lock of `uid` in `dir`, if no one else holds it.
fn try_lock(dir: &Path, uid: u32) -> io::Result<Option<File>> {
    crate::spawn::try_lock(&dir.join(uid.to_string()))
}

/// The uids of `range` that some process runs as now (real, effective, saved or filesystem).
fn uids_running(range: UidRange) -> BTreeSet<u32> {
    let mut found = BTreeSet::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if !entry
            .file_name()
            .as_encoded_bytes()
            .iter()
            .all(u8::is_ascii_digit)
        {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        let ids = status
            .lines()
            .find_map(|line| line.strip_prefix("Uid:"))
            .unwrap_or("");
        found.extend(
            ids.split_whitespace()
                .filter_map(|id| id.parse::<u32>().ok())
                .filter(|&id| range.contains(id)),
        );
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_read_and_checked() {
        let range: UidRange = "1900000000-1900004095".parse().expect("a range");
        assert_eq!((range.first, range.count), (1_900_000_000, 4096));
        assert_eq!(range.to_string(), "1900000000-1900004095");
        for bad in [
            "0-10",
            "5-4",
            "60000-70000",
            "1-",
            "x-y",
            "4294967200-4294967295",
        ] {
            assert!(bad.parse::<UidRange>().is_err(), "{bad}");
        }
    }
}
