//! Uploads unpacked safely. A zip is checked entry by entry before anything is written: its number
//! of entries, the declared and the real unpacked sizes (a zip bomb lies about neither for long:
//! reading stops at the limit), the ratio of unpacked to packed bytes, names that would leave the
//! folder (`..`, absolute paths) and symbolic links, which are refused.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use crate::config::Limits;

/// Why an upload was refused: said to the contestant as it is.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct Refused(pub String);

/// A file name as uploaded, checked: one plain name (no folder, no leading dot).
pub fn upload_name(name: &str) -> Result<String, Refused> {
    let base = name;
    crate::config::check_name(base)
        .map_err(|_| Refused(format!(
            "the file name {name:?} is not allowed: use letters, digits, `_`, `-` and `.` (bot.py, bot.zip)"
        )))?;
    Ok(base.to_string())
}

/// Writes an upload into `dir` (made, empty): a zip is unpacked there (and the bot is the folder),
/// any other file is written as `dir/NAME` (and the bot is that file). Returns the bot's path.
pub fn unpack(name: &str, bytes: &[u8], dir: &Path, limits: &Limits) -> Result<PathBuf, Refused> {
    let name = upload_name(name)?;
    let io = |e: std::io::Error| Refused(format!("cannot store the upload: {e}"));
    std::fs::create_dir_all(dir).map_err(io)?;
    if bytes.len() as u64 > limits.upload_bytes {
        return Err(Refused(format!(
            "the upload is {} bytes; this contest takes at most {}",
            bytes.len(),
            limits.upload_bytes
        )));
    }
    if !name.to_ascii_lowercase().ends_with(".zip") {
        let path = dir.join(&name);
        std::fs::write(&path, bytes).map_err(io)?;
        return Ok(path);
    }
    let folder = dir.join("bot");
    unzip(bytes, &folder, limits)?;
    Ok(folder)
}

/// Unpacks a zip into `folder` (made), or refuses it whole (nothing left behind).
pub fn unzip(bytes: &[u8], folder: &Path, limits: &Limits) -> Result<(), Refused> {
    let result = unzip_checked(bytes, folder, limits);
    if result.is_err() {
        let _ = std::fs::remove_dir_all(folder);
    }
    result
}

fn unzip_checked(bytes: &[u8], folder: &Path, limits: &Limits) -> Result<(), Refused> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| Refused(format!("the upload is not a readable zip archive: {e}")))?;
    if archive.len() as u64 > u64::from(limits.archive_entries) {
        return Err(Refused(format!(
            "the zip has {} entries; this contest takes at most {}",
            archive.len(),
            limits.archive_entries
        )));
    }
    // First pass: names, kinds and declared sizes, before anything is written.
    let mut declared: u64 = 0;
    let mut plan = Vec::new();
    for index in 0..archive.len() {
        let entry = archive
            .by_index_raw(index)
            .map_err(|e| Refused(format!("entry {index} of the zip cannot be read: {e}")))?;
        let raw_name = entry.name().to_string();
        if entry.is_symlink() {
            return Err(Refused(format!(
                "the zip's entry {raw_name:?} is a symbolic link: links are refused (put the file itself in the zip)"
            )));
        }
        let relative = safe_relative(&raw_name)?;
        declared = declared.saturating_add(entry.size());
        if declared > limits.archive_bytes {
            return Err(Refused(format!(
                "the zip unpacks to more than {} bytes (the contest's limit)",
                limits.archive_bytes
            )));
        }
        plan.push((index, relative, entry.is_dir()));
    }
    std::fs::create_dir_all(folder).map_err(|e| Refused(format!("cannot unpack: {e}")))?;
    let mut written: u64 = 0;
    for (index, relative, is_dir) in plan {
        let target = folder.join(&relative);
        if is_dir {
            std::fs::create_dir_all(&target).map_err(|e| Refused(format!("cannot unpack: {e}")))?;
            continue;
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Refused(format!("cannot unpack: {e}")))?;
        }
        let mut entry = archive.by_index(index).map_err(|e| {
            Refused(format!(
                "the zip's entry {} cannot be read: {e}",
                relative.display()
            ))
        })?;
        let packed = entry.compressed_size().max(1);
        let mode = entry.unix_mode();
        // Never trust the declared size: read at most what is left of the budget, plus one byte
        // to notice going over it.
        let budget = limits.archive_bytes - written;
        let ratio_cap = packed
            .saturating_mul(u64::from(limits.archive_ratio))
            .max(4096);
        let cap = budget.min(ratio_cap);
        let mut data = Vec::new();
        (&mut entry)
            .take(cap + 1)
            .read_to_end(&mut data)
            .map_err(|e| {
                Refused(format!(
                    "the zip's entry {} is damaged: {e}",
                    relative.display()
                ))
            })?;
        if data.len() as u64 > cap {
            return Err(Refused(if cap == budget {
                format!(
                    "the zip unpacks to more than {} bytes (the contest's limit)",
                    limits.archive_bytes
                )
            } else {
                format!(
                    "the zip's entry {} unpacks to more than {}× its packed size: refused as a zip bomb",
                    relative.display(),
                    limits.archive_ratio
                )
            }));
        }
        written += data.len() as u64;
        std::fs::write(&target, &data).map_err(|e| Refused(format!("cannot unpack: {e}")))?;
        if let Some(mode) = mode {
            use std::os::unix::fs::PermissionsExt;
            // Keep the executable bits (run.sh), never set-id bits.
            let _ = std::fs::set_permissions(
                &target,
                std::fs::Permissions::from_mode(mode & 0o755 | 0o600),
            );
        }
    }
    Ok(())
}

/// A zip entry's name as a path inside the folder, or the reason it is refused.
fn safe_relative(name: &str) -> Result<PathBuf, Refused> {
    let refuse = || {
        Refused(format!(
            "the zip's entry {name:?} would be written outside the bot's folder: refused"
        ))
    };
    if name.contains('\\') || name.contains('\0') {
        return Err(refuse());
    }
    let path = Path::new(name);
    let mut relative = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => relative.push(part),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(refuse());
            }
        }
    }
    if relative.as_os_str().is_empty() {
        return Err(refuse());
    }
    Ok(relative)
}

/// Why a folder could not be zipped for upload.
#[derive(Debug, thiserror::Error)]
pub enum ZipError {
    /// A file or folder of it cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The contest refuses links: the contestant copies the file in instead.
    #[error(
        "{} is a symbolic link: the contest refuses links (copy the file instead)",
        path.display()
    )]
    Link { path: PathBuf },
    /// Writing the zip in memory failed.
    #[error("cannot make the zip: {0}")]
    Write(String),
}

/// A folder as a zip in memory (what `arena submit FOLDER` sends). Symbolic links are refused here
/// too, so that the contestant hears it before uploading.
pub fn zip_folder(folder: &Path) -> Result<Vec<u8>, ZipError> {
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    add_folder(&mut out, folder, Path::new(""))?;
    out.finish()
        .map(|cursor| cursor.into_inner())
        .map_err(|e| ZipError::Write(e.to_string()))
}

fn add_folder(
    out: &mut zip::ZipWriter<std::io::Cursor<Vec<u8>>>,
    folder: &Path,
    prefix: &Path,
) -> Result<(), ZipError> {
    let read = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ZipError::Read { path, source }
    };
    let mut entries: Vec<_> = std::fs::read_dir(folder)
        .map_err(read(folder))?
        .collect::<Result<_, _>>()
        .map_err(read(folder))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let kind = entry.file_type().map_err(read(&path))?;
        let name = prefix.join(entry.file_name());
        let name_text = name.to_string_lossy().into_owned();
        if kind.is_symlink() {
            return Err(ZipError::Link { path });
        }
        if kind.is_dir() {
            out.add_directory(
                format!("{name_text}/"),
                zip::write::SimpleFileOptions::default(),
            )
            .map_err(|e| ZipError::Write(e.to_string()))?;
            add_folder(out, &path, &name)?;
        } else {
            use std::os::unix::fs::PermissionsExt;
            let mode = entry
                .metadata()
                .map(|m| m.permissions().mode())
                .unwrap_or(0o644);
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .unix_permissions(mode & 0o755);
            out.start_file(name_text, options)
                .map_err(|e| ZipError::Write(e.to_string()))?;
            // What a contestant or a build left: regular files only, never blocking.
            let bytes =
                arena_core::folders::read_untrusted(&path, u64::MAX).map_err(read(&path))?;
            std::io::Write::write_all(out, &bytes).map_err(|e| ZipError::Write(e.to_string()))?;
        }
    }
    Ok(())
}
