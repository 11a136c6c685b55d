//! The files the server may read: the roots it was given, tournaments in them, replay files, and the
//! one function that turns a user-supplied relative path into a file (`resolve_under`).

use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

use crate::ViewerError;

/// Files that mark a directory as a tournament's output.
// The folder's file names, from its layout (their old names here stay).
pub use arena_formats::layout::{PLAN_FILE as TOURNAMENT_FILE, RESULTS_FILE};
/// The tournament runner's own HTML report, when it has written one.
pub const REPORT_FILE: &str = "report.html";

/// Decompressed replays larger than this are refused: a gzip bomb must not exhaust memory. The
/// largest replays arena writes (Spring 2021 process games with their inputs) are a few MB.
const MAX_REPLAY_BYTES: u64 = 64 << 20;

/// Why a request for a file is refused; each maps to one 4xx status.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Malformed path: absolute, `..`, empty, backslashes, not a replay name (400).
    BadPath(String),
    /// The path resolves outside the directory (a symlink) (403).
    Outside(String),
    /// Nothing there (404).
    Missing(String),
}

/// Turns `relative` (from a URL) into a canonical path inside `root` (already canonical).
///
/// Only plain names separated by `/` are accepted: no absolute paths, no `.`/`..`, no backslashes or
/// NULs. The joined path is then canonicalised, which resolves symlinks, and must still lie under
/// `root`: a symlink inside a tournament that points elsewhere is refused, not followed.
pub fn resolve_under(root: &Path, relative: &str) -> Result<PathBuf, Refusal> {
    if relative.is_empty() {
        return Err(Refusal::BadPath("empty path".into()));
    }
    if relative.contains('\\') || relative.contains('\0') {
        return Err(Refusal::BadPath(format!(
            "`{relative}` has forbidden characters"
        )));
    }
    let path = Path::new(relative);
    if path.is_absolute() || relative.starts_with('/') {
        return Err(Refusal::BadPath(format!(
            "`{relative}` is absolute; paths are relative to the served directory"
        )));
    }
    for component in path.components() {
        if !matches!(component, Component::Normal(_)) {
            return Err(Refusal::BadPath(format!(
                "`{relative}` leaves the served directory"
            )));
        }
    }
    let joined = root.join(path);
    let canonical =
        fs::canonicalize(&joined).map_err(|_| Refusal::Missing(format!("no file `{relative}`")))?;
    if !canonical.starts_with(root) {
        return Err(Refusal::Outside(format!(
            "`{relative}` leads outside the served directory"
        )));
    }
    Ok(canonical)
}

/// Whether a file name looks like a replay the viewer reads.
pub fn is_replay_name(name: &str) -> bool {
    (name.ends_with(".json") || name.ends_with(".json.gz")) && name != TOURNAMENT_FILE
}

/// The text of a replay file, gunzipped when it is compressed (by magic bytes, whatever its name).
/// Read and decompressed as a stream that stops past [`MAX_REPLAY_BYTES`]: a small gzip bomb
/// costs at most that much memory, not what it would inflate to.
pub fn read_text(path: &Path) -> Result<String, ViewerError> {
    let io = |source| ViewerError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::io::BufReader::new(fs::File::open(path).map_err(io)?);
    let compressed = std::io::BufRead::fill_buf(&mut file)
        .map_err(io)?
        .starts_with(&[0x1f, 0x8b]);
    let mut out = Vec::new();
    let read = if compressed {
        flate2::bufread::MultiGzDecoder::new(file)
            .take(MAX_REPLAY_BYTES + 1)
            .read_to_end(&mut out)
    } else {
        file.take(MAX_REPLAY_BYTES + 1).read_to_end(&mut out)
    };
    read.map_err(|e| ViewerError::NotAReplay(format!("{}: cannot read it: {e}", path.display())))?;
    if out.len() as u64 > MAX_REPLAY_BYTES {
        return Err(ViewerError::NotAReplay(format!(
            "{} is larger than {} MB once decompressed: not a replay arena wrote",
            path.display(),
            MAX_REPLAY_BYTES >> 20
        )));
    }
    String::from_utf8(out)
        .map_err(|_| ViewerError::NotAReplay(format!("{} is not UTF-8 text", path.display())))
}

/// A directory holding a tournament's output.
#[derive(Clone, Debug)]
pub struct TournamentDir {
    /// Index of the root in the server's list.
    pub root: usize,
    /// Subdirectory name, `None` when the root itself is the tournament.
    pub sub: Option<String>,
    pub path: PathBuf,
}

impl TournamentDir {
    /// The URL path of its page.
    pub fn href(&self) -> String {
        match &self.sub {
            None => format!("/t/{}", self.root),
            Some(sub) => format!("/t/{}/{}", self.root, url_segment(sub)),
        }
    }

    /// A replay's path relative to the root, for `/g/ROOT/PATH` links.
    pub fn root_relative(&self, inside: &str) -> String {
        match &self.sub {
            None => inside.to_string(),
            Some(sub) => format!("{sub}/{inside}"),
        }
    }
}

pub fn is_tournament(dir: &Path) -> bool {
    dir.join(TOURNAMENT_FILE).is_file() || dir.join(RESULTS_FILE).is_file()
}

/// What one root holds: tournaments (itself and its direct subdirectories) and loose replay files.
pub struct RootListing {
    pub tournaments: Vec<TournamentDir>,
    pub replays: Vec<String>,
}

/// Lists a root now (not at start-up: tournaments appear while the server runs).
pub fn list_root(index: usize, root: &Path) -> RootListing {
    let mut tournaments = Vec::new();
    let mut replays = Vec::new();
    if is_tournament(root) {
        tournaments.push(TournamentDir {
            root: index,
            sub: None,
            path: root.to_path_buf(),
        });
    }
    let mut names: Vec<String> = fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort();
    for name in names {
        // The same check as for a URL: a symlinked subdirectory pointing outside is not listed.
        let Ok(path) = resolve_under(root, &name) else {
            continue;
        };
        if path.is_dir() {
            if is_tournament(&path) {
                tournaments.push(TournamentDir {
                    root: index,
                    sub: Some(name),
                    path,
                });
            }
        } else if is_replay_name(&name) {
            replays.push(name);
        }
    }
    RootListing {
        tournaments,
        replays,
    }
}

/// Finds the tournament `/t/ROOT[/SUB]` names.
pub fn tournament(
    roots: &[PathBuf],
    root: usize,
    sub: Option<&str>,
) -> Result<TournamentDir, Refusal> {
    let base = roots
        .get(root)
        .ok_or_else(|| Refusal::Missing(format!("no served directory number {root}")))?;
    let path = match sub {
        None => base.clone(),
        Some(sub) => {
            if sub.contains('/') {
                return Err(Refusal::BadPath(format!("`{sub}` is not a directory name")));
            }
            resolve_under(base, sub)?
        }
    };
    if !path.is_dir() || !is_tournament(&path) {
        return Err(Refusal::Missing(format!(
            "no tournament in `{}` (no {TOURNAMENT_FILE} or {RESULTS_FILE})",
            sub.unwrap_or(".")
        )));
    }
    Ok(TournamentDir {
        root,
        sub: sub.map(str::to_string),
        path,
    })
}

/// `tournament.json`, as far as the pages use it; every field optional so that a newer or older
/// layout still shows.
#[derive(Debug, Default, Deserialize)]
pub struct TournamentInfo {
    #[serde(default)]
    pub game: Option<String>,
    #[serde(default)]
    pub variant: Option<String>,
    #[serde(default)]
    pub bots: Vec<BotInfo>,
    #[serde(default)]
    pub schedule: Option<serde_json::Value>,
    #[serde(default)]
    pub seed: Option<serde_json::Value>,
    #[serde(default)]
    pub games: Option<serde_json::Value>,
}

#[derive(Debug, Default, Deserialize)]
pub struct BotInfo {
    pub name: String,
    #[serde(default)]
    pub spec: String,
}

/// One line of `results.jsonl`.
#[derive(Debug, Deserialize)]
pub struct ResultLine {
    pub index: u64,
    #[serde(default)]
    pub game: Option<String>,
    #[serde(default)]
    pub seed: Option<serde_json::Value>,
    #[serde(default)]
    pub seats: Vec<usize>,
    #[serde(default)]
    pub bots: Vec<String>,
    #[serde(default)]
    pub scores: Vec<serde_json::Value>,
    #[serde(default)]
    pub ranks: Vec<u32>,
    #[serde(default)]
    pub winner: Option<usize>,
    #[serde(default)]
    pub faults: Vec<Vec<String>>,
    #[serde(default)]
    pub replay: Option<String>,
}

pub struct Tournament {
    pub info: Option<TournamentInfo>,
    /// Why `tournament.json` could not be read, when it exists.
    pub info_error: Option<String>,
    pub results: Vec<ResultLine>,
    /// Lines of `results.jsonl` that could not be read (a game being written, a damaged file).
    pub bad_lines: usize,
}

/// A plan's fields the pages show, after the one format check (a newer arena's folder is refused,
/// not misread).
fn read_info(text: &str) -> Result<TournamentInfo, String> {
    let document: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    arena_formats::version::check_plan(&document).map_err(|e| e.to_string())?;
    serde_json::from_value(document).map_err(|e| e.to_string())
}

pub fn load_tournament(dir: &Path) -> Tournament {
    let (info, info_error) = match fs::read_to_string(dir.join(TOURNAMENT_FILE)) {
        Ok(text) => match read_info(&text) {
            Ok(info) => (Some(info), None),
            Err(e) => (None, Some(format!("{TOURNAMENT_FILE}: {e}"))),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None),
        Err(e) => (None, Some(format!("{TOURNAMENT_FILE}: {e}"))),
    };
    let mut results = Vec::new();
    let mut bad_lines = 0;
    if let Ok(text) = fs::read_to_string(dir.join(RESULTS_FILE)) {
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            match serde_json::from_str::<ResultLine>(line) {
                Ok(result) => results.push(result),
                Err(_) => bad_lines += 1,
            }
        }
    }
    // The journal is in the order games finished (parallel workers interleave them); the pages
    // list games in schedule order, as `--show-lost` and `arena replay` number them.
    results.sort_by_key(|result| result.index);
    Tournament {
        info,
        info_error,
        results,
        bad_lines,
    }
}

/// The exact text of a score.
pub fn score_text(score: &serde_json::Value) -> String {
    match score {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Percent-encodes one URL path segment (names are usually plain; spaces and `#` must not break links).
pub fn url_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Percent-encodes a relative path, keeping its `/` separators.
pub fn url_path(text: &str) -> String {
    text.split('/')
        .map(url_segment)
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_listed_in_schedule_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lines: String = [0, 2, 1, 4, 5, 3]
            .iter()
            .map(|index| format!("{{\"index\":{index},\"game\":\"coup\"}}\n"))
            .collect();
        fs::write(dir.path().join(RESULTS_FILE), lines).expect("journal");
        let tournament = load_tournament(dir.path());
        let order: Vec<u64> = tournament.results.iter().map(|r| r.index).collect();
        assert_eq!(order, [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn resolve_refuses_escapes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = fs::canonicalize(dir.path()).expect("canonical");
        fs::write(root.join("a.json"), "{}").expect("write");
        assert!(resolve_under(&root, "a.json").is_ok());
        for bad in [
            "../etc/passwd",
            "/etc/passwd",
            "./a.json",
            "a\\b",
            "",
            "x/../a.json",
        ] {
            assert!(
                matches!(resolve_under(&root, bad), Err(Refusal::BadPath(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            resolve_under(&root, "missing.json"),
            Err(Refusal::Missing(_))
        ));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc/passwd", root.join("link.json")).expect("symlink");
            assert!(matches!(
                resolve_under(&root, "link.json"),
                Err(Refusal::Outside(_))
            ));
        }
    }

    #[test]
    fn scores_show_as_written() {
        assert_eq!(score_text(&serde_json::json!("23/3")), "23/3");
    }
}
