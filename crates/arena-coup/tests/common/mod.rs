//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// The reference arbiter's folder, named by `ARENA_COUP_REFERENCE`: `arbiter.py` (the Python 2 arbiter
/// published with the Code Golf KotH, with its deck made settable for testing: `COUP_NO_SHUFFLE`,
/// `COUP_DECK`) and `bots/hashbot.py`. It is not part of arena; the tests that compare with it are
/// `#[ignore]`d and run with `-- --ignored` where it is at hand.
pub fn reference() -> PathBuf {
    let path = std::env::var_os("ARENA_COUP_REFERENCE").map(PathBuf::from).expect(
        "set ARENA_COUP_REFERENCE to the folder holding the reference arbiter.py and bots/hashbot.py",
    );
    assert!(
        path.join("arbiter.py").is_file() && path.join("bots/hashbot.py").is_file(),
        "ARENA_COUP_REFERENCE={} holds no arbiter.py and bots/hashbot.py",
        path.display()
    );
    path.canonicalize().expect("the reference folder")
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
