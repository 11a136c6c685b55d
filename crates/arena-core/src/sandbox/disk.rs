//! The bot's bounded disk: a size-limited tmpfs that arena (root) mounts on the host on the bot's
//! fresh folder before its sandbox is set up ([`Disk`]), so that writing past the limit gives that
//! bot ENOSPC, touches no disk, and arena still reads and writes the bot's files at their path.
//!
//! Why a tmpfs: it needs nothing of the host's filesystem (a quota needs ext4 or XFS made with
//! quotas, a loop-mounted image needs loop devices, both absent on an overlay root or in many
//! containers), costs one mount, and its pages are charged to the memory cgroup of the process that
//! writes them: the bot's files count in its memory limit, so a bot can never make the machine hold
//! more than its limits allow, and nothing reaches the disk.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The source name of arena's tmpfs mounts, followed by the pid of the arena that made them (so a
/// restarted arena can unmount those of a dead one: see [`sweep_stale`]).
const SOURCE: &str = "arena-disk-";

/// A size-limited tmpfs mounted on the host; unmounted when dropped.
#[derive(Debug)]
pub(super) struct Disk {
    path: PathBuf,
}

impl Disk {
    /// Mounts an empty tmpfs of `size` bytes on the folder `dir` (mode 0711: the bot's own
    /// folders inside are made and handed to it by arena).
    pub(super) fn mount(dir: &Path, size: u64) -> io::Result<Disk> {
        let path = std::path::absolute(dir)?;
        let target = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in a path"))?;
        let source = CString::new(format!("{SOURCE}{}", std::process::id()))
            .map_err(|_| io::Error::other("a NUL in the mount's name"))?;
        // One inode per 4 KiB at most: a bot making millions of empty files would otherwise hold
        // kernel memory (inodes, dentries) far beyond the size.
        let options = CString::new(format!(
            "size={size},nr_inodes={},mode=0711",
            (size / 4096).max(1024)
        ))
        .map_err(|_| io::Error::other("a NUL in the mount's options"))?;
        // SAFETY: mount with NUL-terminated strings that outlive the call.
        let mounted = unsafe {
            libc::mount(
                source.as_ptr(),
                target.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                options.as_ptr().cast(),
            )
        };
        if mounted != 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(
                e.kind(),
                format!(
                    "cannot mount the bot's disk (a tmpfs) on {}: {e}",
                    path.display()
                ),
            ));
        }
        Ok(Disk { path })
    }
}

impl Drop for Disk {
    fn drop(&mut self) {
        unmount(&self.path);
    }
}

/// Detaches the mount at `path` (lazily: a descriptor arena still holds in it keeps its memory
/// until it is closed, nothing else).
fn unmount(path: &Path) {
    if let Ok(target) = CString::new(path.as_os_str().as_bytes()) {
        // SAFETY: umount2 with a NUL-terminated path.
        unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) };
    }
}

/// Unmounts the bots' disks left by arena processes that no longer exist (killed with -9): their
/// memory is held until then.
pub(super) fn sweep_stale() {
    let Ok(text) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return;
    };
    for line in text.lines() {
        let Some((mount, fs)) = line.split_once(" - ") else {
            continue;
        };
        let mut fs = fs.split(' ');
        let (Some("tmpfs"), Some(source)) = (fs.next(), fs.next()) else {
            continue;
        };
        let Some(pid) = source
            .strip_prefix(SOURCE)
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let Some(point) = mount.split(' ').nth(4) else {
            continue;
        };
        // A zombie's disk is no one's either (its process is dead, only not reaped yet).
        if pid != std::process::id() && !crate::folders::process_runs(pid) {
            unmount(&unescape(point));
        }
    }
}

/// A path of `/proc/self/mountinfo`, where space, tab, newline and backslash are octal escapes.
fn unescape(field: &str) -> PathBuf {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let octal = bytes.get(at + 1..at + 4).and_then(|digits| {
            let text = std::str::from_utf8(digits).ok()?;
            u8::from_str_radix(text, 8).ok()
        });
        match (bytes[at], octal) {
            (b'\\', Some(byte)) => {
                out.push(byte);
                at += 4;
            }
            (byte, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    PathBuf::from(std::ffi::OsStr::from_bytes(&out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_paths_are_unescaped() {
        assert_eq!(unescape("/tmp/a\\040b\\134c"), PathBuf::from("/tmp/a b\\c"));
        assert_eq!(unescape("/plain"), PathBuf::from("/plain"));
    }
}
