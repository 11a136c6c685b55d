//! Working folders: each game's copies of the bots' folders (made before the game, removed after),
//! the one `copy_tree`, and the one way arena opens a file a bot could have touched
//! ([`open_untrusted`], [`read_untrusted`]).

use std::path::{Path, PathBuf};

/// Scratch folders made by this process; numbers them.
static FOLDERS_MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Why a game's working folders could not be made.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// The scratch folder under the temporary directory (`TMPDIR`) could not be made.
    #[error("cannot make {}: {source}", path.display())]
    Scratch {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A seat's working folder could not be copied (unreadable files, a full disk).
    #[error("cannot copy the working folder {} to {}: {source}", from.display(), to.display())]
    Copy {
        from: PathBuf,
        to: PathBuf,
        source: std::io::Error,
    },
}

// The registry's game set-up still says its errors as text; this lets it pass these on unchanged.

/// The working folders of one game: every seat with a `--workdir` plays in a fresh copy of it, made
/// before the game and removed when this is dropped (after the game, or when it is abandoned). So
/// parallel games never share a folder, and a bot that keeps state there (Coup's Calculator keeps
/// a file between the calls of a game) starts every game from the folder as given: the same
/// tournament gives the same results on any number of workers.
#[derive(Debug)]
pub struct GameFolders {
    root: Option<PathBuf>,
}

impl GameFolders {
    /// No folder of this game's own: every seat plays in its folder as given (a run that keeps
    /// the bots' folders from game to game).
    pub fn none() -> GameFolders {
        GameFolders { root: None }
    }

    /// Copies each seat's working folder (when it is one) and points the seat at the copy. A
    /// `workdir` that is not a folder is left as given: starting the bot reports it.
    pub fn prepare<'a>(
        workdirs: impl IntoIterator<Item = &'a mut Option<PathBuf>>,
    ) -> Result<GameFolders, FolderError> {
        let mut folders = GameFolders { root: None };
        for (index, workdir) in workdirs.into_iter().enumerate() {
            let Some(source) = workdir.as_ref().filter(|dir| dir.is_dir()) else {
                continue;
            };
            let root = match &folders.root {
                Some(root) => root.clone(),
                None => folders.root.insert(make_scratch_root()?).clone(),
            };
            let name = source
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "workdir".into());
            let copy = root.join(format!("{index}-{name}"));
            copy_tree(source, &copy).map_err(|e| FolderError::Copy {
                from: source.clone(),
                to: copy.clone(),
                source: e,
            })?;
            *workdir = Some(copy);
        }
        Ok(folders)
    }
}

impl Drop for GameFolders {
    fn drop(&mut self) {
        if let Some(root) = self.root.take() {
            // Best effort: what cannot be removed is left for the next start's sweep rather than
            // failing the game.
            let _ = remove_tree(&root);
        }
    }
}

fn make_scratch_root() -> Result<PathBuf, FolderError> {
    let base = std::env::temp_dir();
    loop {
        let n = FOLDERS_MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let root = base.join(format!("arena-game-{}-{n}", std::process::id()));
        match std::fs::create_dir(&root) {
            Ok(()) => return Ok(root),
            // Left by an earlier process with the same id: take the next number.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(FolderError::Scratch { path: root, source }),
        }
    }
}

/// How [`copy_tree_with`] copies.
#[derive(Clone, Copy, Debug, Default)]
pub struct TreeCopy {
    /// Leave out `.git` folders (a submission's history is no part of the bot).
    pub skip_git: bool,
    /// Give the owner full rights on every copied folder, so that arena can fill and remove the
    /// copy of a read-only source (a submission unpacked read-only).
    pub owner_writable: bool,
    /// Leave out FIFOs, sockets and devices (a bot's folder copied back) instead of refusing the
    /// copy with [`copy_file`]'s error.
    pub skip_special: bool,
}

/// Copies the folder `from` to `to` (made): files, subfolders, symbolic links (as links) and
/// permissions, exactly.
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    copy_tree_with(from, to, TreeCopy::default())
}

/// [`copy_tree`] with the choices of `how`: the one folder copy of arena (game folders, sandboxes,
/// submissions).
pub fn copy_tree_with(from: &Path, to: &Path, how: TreeCopy) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir(to)?;
    copy_entries_with(from, to, how)?;
    // Last, so that a read-only source folder can still be filled.
    let mut mode = std::fs::metadata(from)?.permissions().mode();
    if how.owner_writable {
        mode |= 0o700;
    }
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(mode))
}

/// The entries of the folder `from` copied into the existing folder `into`, as [`copy_tree_with`]
/// copies them: subfolders whole, symbolic links as links, regular files with [`copy_file`] (never
/// through a link).
pub fn copy_entries_with(from: &Path, into: &Path, how: TreeCopy) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if how.skip_git && entry.file_name() == ".git" {
            continue;
        }
        let kind = entry.file_type()?;
        let target = into.join(entry.file_name());
        if kind.is_dir() {
            copy_tree_with(&entry.path(), &target, how)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_file() || !how.skip_special {
            copy_file(&entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Opens `path` for reading as a file a bot could have made or replaced (its folder, a build's
/// output, Coup's history): never through a symbolic link (`O_NOFOLLOW`), without waiting (a FIFO
/// with no writer would block the open for good: `O_NONBLOCK`), and only if it is a regular file
/// (checked on the opened descriptor, so it cannot be swapped in between). A device, FIFO or
/// socket is refused with `InvalidData`, a link with the system's `ELOOP`.
pub fn open_untrusted(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{} is a symbolic link", path.display()),
            ),
            _ => e,
        })?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        let what = if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_socket() {
            "a socket"
        } else if kind.is_char_device() || kind.is_block_device() {
            "a device"
        } else {
            "not a regular file"
        };
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is {what}", path.display()),
        ));
    }
    Ok(file)
}

/// Reads a file a bot could have touched ([`open_untrusted`]), at most `cap` bytes: a larger one is
/// refused with `FileTooLarge` rather than read (a bot's 200 MB file costs arena nothing).
pub fn read_untrusted(path: &Path, cap: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = open_untrusted(path)?;
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("{} is larger than {cap} bytes", path.display()),
        )
    };
    let size = file.metadata()?.len();
    if size > cap {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    // One byte more than allowed tells a file that grew since its size was read.
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Copies the regular file `from` (opened as [`open_untrusted`]: a FIFO, device or socket a
/// build or a bot left in a folder is refused rather than blocking or streaming forever) to `to`
/// (made or replaced, never through a link, with `from`'s permissions).
pub fn copy_file(from: &Path, to: &Path) -> std::io::Result<u64> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut source = open_untrusted(from)?;
    let mode = source.metadata()?.permissions();
    let mut target = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(to)?;
    let copied = std::io::copy(&mut source, &mut target)?;
    target.set_permissions(mode)?;
    Ok(copied)
}

/// Removes whatever a bot left at `path` (a file, a link itself, a FIFO, a folder tree: links are
/// never followed), so that arena can put its own regular file there.
pub fn remove_untrusted(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// When process `pid` started, when it runs (`/proc/PID/stat`'s start time after boot, and the
/// boot time of `/proc/stat`; to the second). `None` for a zombie too: a process killed with -9
/// whose parent has not reaped it yet keeps its `/proc/PID` (and its start time) but is dead, and
/// its successor, started at once, must not wait for it.
pub(crate) fn process_start(pid: u32) -> Option<std::time::SystemTime> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command's closing parenthesis: state is field 3, the start time field 22.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // Z: a zombie, X: being reaped.
    if matches!(fields.first(), Some(&"Z" | &"X")) {
        return None;
    }
    let ticks: u64 = fields.get(19)?.parse().ok()?;
    let boot: u64 = std::fs::read_to_string("/proc/stat")
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    // SAFETY: sysconf only reads.
    let hz = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) })
        .ok()
        .filter(|&hz| hz > 0)?;
    let after_boot = std::time::Duration::from_millis(ticks * 1000 / hz);
    Some(std::time::UNIX_EPOCH + std::time::Duration::from_secs(boot) + after_boot)
}

/// Whether process `pid` runs (exists and is no zombie), whenever it started.
pub fn process_runs(pid: u32) -> bool {
    process_start(pid).is_some()
}

/// Whether the arena process with id `pid` that made something at `made` is gone: no process has
/// that id, it is a zombie (killed, not yet reaped), or the one that has it started after `made`
/// (the id was used again). The boot time is
/// known to the second, so a process started within two seconds of `made` counts as the owner:
/// what is kept by mistake is removed by a later sweep, what is removed by mistake would break a
/// running game.
pub fn owner_gone(pid: u32, made: std::time::SystemTime) -> bool {
    match process_start(pid) {
        None => true,
        Some(started) => started > made + std::time::Duration::from_secs(2),
    }
}

/// Removes the scratch folders that arena processes which no longer exist (killed with -9) left in
/// the temporary folder and `/dev/shm`: game folders (`arena-game-PID-N`), sandbox folders
/// (`arena-sandbox-PID-N`, its `.calls`) and history folders (`arena-calls-TAG-PID-N`), whoever
/// owns them now (a sandbox's folder is its bot's user's; another user's folder in the sticky
/// temporary folder cannot be removed unless arena is root), only those whose owner is gone
/// ([`owner_gone`]): folders of a running arena are never touched. Returns how many were removed. A server or worker calls it when it
/// starts; so does every sandbox's start-up check.
pub fn sweep_stale() -> usize {
    let mut removed = 0;
    for base in [std::env::temp_dir(), PathBuf::from("/dev/shm")] {
        let Ok(entries) = std::fs::read_dir(&base) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(pid) = stale_candidate(&name) else {
                continue;
            };
            let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
                continue;
            };
            if !meta.is_dir() {
                continue;
            }
            let made = meta.created().or_else(|_| meta.modified());
            if made.is_ok_and(|made| owner_gone(pid, made)) && remove_tree(&entry.path()).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}

/// Removes the folder tree at `path` (links are never followed), including folders a bot made
/// unreadable or unwritable to their owner (`chmod 0` on a subfolder of its working folder): what
/// `remove_dir_all` cannot open is given its owner's rights back and removed on a second pass.
/// A folder of another user stays where arena is not root (the sticky temporary folder).
pub fn remove_tree(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            owner_rights(path);
            std::fs::remove_dir_all(path)
        }
        _ => Ok(()),
    }
}

/// Gives every folder under `path` (itself included) its owner's full rights, best effort.
fn owner_rights(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if !meta.is_dir() {
        return;
    }
    let mode = meta.permissions().mode() | 0o700;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
    if let Ok(entries) = std::fs::read_dir(path) {
        for entry in entries.flatten() {
            owner_rights(&entry.path());
        }
    }
}

/// The owner's pid in the name of one of arena's scratch folders (see [`sweep_stale`]).
pub(crate) fn stale_candidate(name: &str) -> Option<u32> {
    let name = name.strip_suffix(".calls").unwrap_or(name);
    let mut parts = name.rsplitn(3, '-');
    let _number: u64 = parts.next()?.parse().ok()?;
    let pid: u32 = parts.next()?.parse().ok()?;
    let kind = parts.next()?;
    (kind == "arena-game" || kind == "arena-sandbox" || kind.starts_with("arena-calls-"))
        .then_some(pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_folders_are_named_by_their_owner() {
        assert_eq!(stale_candidate("arena-game-123-4"), Some(123));
        assert_eq!(stale_candidate("arena-sandbox-77-0.calls"), Some(77));
        assert_eq!(stale_candidate("arena-calls-play-9-1"), Some(9));
        assert_eq!(stale_candidate("arena-cache"), None);
        assert_eq!(stale_candidate("other-game-1-2"), None);
    }

    #[test]
    fn a_running_process_owns_what_it_made_and_a_dead_one_nothing() {
        let now = std::time::SystemTime::now();
        assert!(!owner_gone(std::process::id(), now));
        // Made before this process started: its id was used again.
        let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1000);
        assert!(owner_gone(std::process::id(), long_ago));
        assert!(owner_gone(u32::MAX, now));
    }

    #[test]
    fn a_zombie_owns_nothing() {
        // A child that exits and is not reaped yet: a zombie, still in /proc.
        let mut child = std::process::Command::new("true")
            .spawn()
            .expect("true runs");
        let pid = child.id();
        let made = std::time::SystemTime::now();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        }) {
            assert!(
                std::time::Instant::now() < deadline,
                "the child never ended"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!process_runs(pid));
        assert!(owner_gone(pid, made));
        child.wait().expect("reaped");
        assert!(process_runs(std::process::id()));
    }

    #[test]
    fn a_tree_a_bot_made_unreadable_is_removed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("arena-locked-tree-{}", std::process::id()));
        let _ = remove_tree(&dir);
        let inner = dir.join("a").join("b");
        std::fs::create_dir_all(&inner).expect("dirs");
        std::fs::write(inner.join("f"), "x").expect("file");
        std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o000)).expect("chmod");
        std::fs::set_permissions(dir.join("a"), std::fs::Permissions::from_mode(0o500))
            .expect("chmod");
        remove_tree(&dir).expect("removed");
        assert!(!dir.exists());
    }

    #[test]
    fn a_fifo_a_link_and_a_huge_file_are_refused_without_blocking() {
        let dir = std::env::temp_dir().join(format!("arena-untrusted-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).expect("dir");
        let fifo = dir.join("fifo");
        let name = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("name");
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        assert_eq!(
            read_untrusted(&fifo, 10).map_err(|e| e.kind()).err(),
            Some(std::io::ErrorKind::InvalidData)
        );
        let link = dir.join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).expect("link");
        assert!(read_untrusted(&link, 10).is_err());
        let huge = dir.join("huge");
        std::fs::write(&huge, vec![b'x'; 100]).expect("file");
        assert_eq!(
            read_untrusted(&huge, 10).map_err(|e| e.kind()).err(),
            Some(std::io::ErrorKind::FileTooLarge)
        );
        assert_eq!(read_untrusted(&huge, 100).expect("read").len(), 100);
        assert!(copy_file(&fifo, &dir.join("copy")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
