//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shared folder (`../shared` beside the workspace); the tests that need it fail without it.
pub fn shared() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    assert!(
        path.join("reference/coup/arbiter.py").is_file(),
        "the shared folder with reference/coup/arbiter.py is missing at {}",
        path.display()
    );
    path.canonicalize().expect("shared folder")
}

fn pyenv_root() -> Option<PathBuf> {
    if let Ok(root) = std::env::var("PYENV_ROOT") {
        return Some(PathBuf::from(root));
    }
    let out = Command::new("pyenv").arg("root").output().ok()?;
    out.status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// Python 2.7 for the reference arbiter: `PYTHON2`, else the newest 2.7 pyenv manages.
pub fn python2() -> PathBuf {
    if let Ok(path) = std::env::var("PYTHON2") {
        return PathBuf::from(path);
    }
    let root = pyenv_root()
        .expect("no PYTHON2 and no pyenv: Python 2.7 is required for the reference arbiter");
    let mut found: Vec<PathBuf> = std::fs::read_dir(root.join("versions"))
        .expect("pyenv versions")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("2.7"))
        .map(|e| e.path().join("bin/python"))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found
        .pop()
        .expect("no Python 2.7 under pyenv: it is required for the reference arbiter")
}

/// A real Python 3 interpreter (not the pyenv shim, which costs a shell start per call).
pub fn python3() -> PathBuf {
    if let Ok(out) = Command::new("pyenv").args(["which", "python3"]).output()
        && out.status.success()
    {
        return PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    }
    PathBuf::from("python3")
}

/// A fresh directory for one test.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arena-coup-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
