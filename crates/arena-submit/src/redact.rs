//! What a contestant is shown of a build (its log, its errors, the start-up probe): the build and
//! nothing of the server. Host paths in it (the build folder, the toolchains' installation
//! prefixes, the organiser's `PATH` and home folder) are replaced, in one place ([`for_contestants`]).

use std::path::{Path, PathBuf};

/// `text` with the host's paths replaced: each of `named` (the build folder, shown as `.`; a
/// server's data folder) by its name, every toolchain prefix found outside the system's folders
/// (`~/.rustup/toolchains/stable-x86_64-unknown-linux-gnu`, `~/.pyenv/versions/2.7.18`) by
/// `<its folder's name>`, the organiser's whole `PATH` by `$PATH` and each of its folders outside
/// the system's by `<its name>` (`<.cargo>/bin`), and the home folder by `~`. Longer paths are
/// replaced first, so that a path inside another keeps its own name.
pub fn for_contestants(text: &str, named: &[(&Path, &str)]) -> String {
    let mut replacements: Vec<(String, String)> = Vec::new();
    let add = |replacements: &mut Vec<(String, String)>, path: &Path, name: String| {
        for form in [Some(path.to_path_buf()), std::fs::canonicalize(path).ok()]
            .into_iter()
            .flatten()
        {
            let text = form.to_string_lossy().trim_end_matches('/').to_string();
            // `/` itself, or a path too short to be anything but a system folder.
            if text.len() > 4 {
                replacements.push((text, name.clone()));
            }
        }
    };
    for (path, name) in named {
        add(&mut replacements, path, (*name).to_string());
    }
    for root in crate::languages::tool_roots() {
        add(&mut replacements, &root, short_name(&root));
    }
    if let Some(path) = std::env::var_os("PATH") {
        let whole = path.to_string_lossy().into_owned();
        if !whole.is_empty() {
            replacements.push((whole, "$PATH".to_string()));
        }
        for dir in std::env::split_paths(&path) {
            if !is_system(&dir) {
                add(&mut replacements, &dir, short_name(&dir));
            }
        }
    }
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        add(&mut replacements, &home, "~".to_string());
    }
    // Longest first: `~/.cargo/bin` before `~`.
    replacements.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    replacements.dedup_by(|a, b| a.0 == b.0);
    let mut out = text.to_string();
    for (from, to) in replacements {
        if out.contains(&from) {
            out = out.replace(&from, &to);
        }
    }
    out
}

/// `<name>` of a host folder; a `bin` folder is named by its parent (`<.cargo>/bin`).
fn short_name(dir: &Path) -> String {
    let name = |path: &Path| {
        path.file_name()
            .map_or_else(|| "host".to_string(), |n| n.to_string_lossy().into_owned())
    };
    match dir.file_name() {
        Some(last) if last == "bin" => match dir.parent() {
            Some(parent) => format!("<{}>/bin", name(parent)),
            None => "<bin>".to_string(),
        },
        _ => format!("<{}>", name(dir)),
    }
}

/// The system's folders: a path there tells nothing of this server.
fn is_system(path: &Path) -> bool {
    ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/opt"]
        .iter()
        .any(|dir| path.starts_with(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_folder_home_and_path_are_replaced() {
        let home = std::env::var("HOME").unwrap_or_default();
        let path = std::env::var("PATH").unwrap_or_default();
        let text = format!(
            "cc -o /srv/builds/abc123/bot /srv/builds/abc123/bot.c\nPATH={path}\n{home}/.cargo/bin/rustc: error\n"
        );
        let out = for_contestants(&text, &[(Path::new("/srv/builds/abc123"), ".")]);
        assert!(out.contains("cc -o ./bot ./bot.c"), "{out}");
        assert!(out.contains("PATH=$PATH"), "{out}");
        if home.len() > 4 {
            assert!(!out.contains(&home), "{out}");
        }
    }

    #[test]
    fn a_bin_folder_is_named_by_its_parent() {
        assert_eq!(short_name(Path::new("/root/.cargo/bin")), "<.cargo>/bin");
        assert_eq!(
            short_name(Path::new("/root/.pyenv/versions/2.7.18")),
            "<2.7.18>"
        );
    }
}
