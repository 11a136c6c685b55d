//! The commands of the replay viewer: `arena serve`, `arena view`, `arena replay` (a tournament's
//! game as a replay file, rebuilt from its seed when it was not stored) and `arena export`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};

use crate::games::find_game_of_plan;
use crate::runtime::{interruptible, runtime, server_runtime};

/// Where and how long `arena serve` answers.
pub struct ServeNetwork {
    pub bind: Option<std::net::IpAddr>,
    pub allow_hosts: Vec<String>,
    pub request_timeout: Duration,
    pub idle_timeout: Duration,
}

pub fn serve(mut dirs: Vec<PathBuf>, port: u16, network: ServeNetwork) -> Result<ExitCode> {
    if dirs.is_empty() {
        dirs.push(PathBuf::from("."));
    }
    let lan = network.bind.filter(|ip| !ip.is_loopback());
    let options = arena_viewer::ServeOptions {
        dirs,
        files: Vec::new(),
        port,
        rebuild: Some(arena_viewer::Rebuilder(std::sync::Arc::new(
            |dir, index| Box::pin(async move { rebuilt_replay(&dir, index, None).await }),
        ))),
        bind: network.bind,
        allowed_hosts: network.allow_hosts,
        request_timeout: Some(network.request_timeout),
        idle_timeout: Some(network.idle_timeout),
        games: crate::games::viewer_games(),
    };
    server_runtime()?.block_on(interruptible(arena_viewer::serve(options, |server| {
        if let Some(ip) = lan {
            eprintln!(
                "warning: --bind {ip}: arena serve answers the network, with no authentication: \
                 anyone who can reach {} sees every game here, the bots' stderr included; \
                 browsers may use the address{} (add names with --allow-host)",
                server.local_addr(),
                if ip.is_unspecified() {
                    "es of this machine"
                } else {
                    ""
                }
            );
        }
        println!("arena serve: {} (Ctrl-C to stop)", server.url());
    })))??;
    Ok(ExitCode::SUCCESS)
}

pub fn view(file: PathBuf, port: u16) -> Result<ExitCode> {
    server_runtime()?.block_on(interruptible(async move {
        let server = arena_viewer::Server::bind(arena_viewer::ServeOptions::view(
            file,
            port,
            crate::games::viewer_games(),
        ))
        .await?;
        println!(
            "arena view: {} (Ctrl-C to stop)",
            server.file_url(0).unwrap_or_else(|| server.url())
        );
        server.run().await
    }))??;
    Ok(ExitCode::SUCCESS)
}

/// Game `index` of the tournament in `dir` played again (every seat a built-in bot), as replay
/// JSON; `played` is its journal entry, when the caller has read it already.
async fn rebuilt_replay(
    dir: &Path,
    index: u64,
    played: Option<arena_tournament::Entry>,
) -> std::result::Result<Vec<u8>, String> {
    let plan = arena_tournament::load(dir).map_err(|e| e.to_string())?;
    let played = match played {
        Some(entry) => Some(entry),
        None => arena_tournament::rebuild::journaled(dir, index)?,
    };
    let game = find_game_of_plan(&plan).map_err(|e| e.to_string())?;
    arena_tournament::rebuild::rebuild_replay(dir, &plan, index, played.as_ref(), game.as_ref())
        .await
}

pub fn replay(dir: &Path, index: u64, output: Option<PathBuf>, view: bool) -> Result<ExitCode> {
    let played = arena_tournament::rebuild::journaled(dir, index)
        .map_err(|e| anyhow!("cannot read the journal of {}: {e}", dir.display()))?;
    let json = match played.as_ref().and_then(|entry| entry.replay.as_ref()) {
        Some(relative) => {
            let path = dir.join(relative);
            arena_viewer::read_replay(&path)
                .with_context(|| format!("cannot read the replay of game {index}"))?
                .into_bytes()
        }
        None => runtime()?
            .block_on(rebuilt_replay(dir, index, played))
            .map_err(|e| anyhow!(e))?,
    };
    let output = output.unwrap_or_else(|| {
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "game".into());
        PathBuf::from(format!("{name}-{index}.replay.json"))
    });
    std::fs::write(&output, &json).with_context(|| format!("cannot write {}", output.display()))?;
    if view {
        return self::view(output, 0);
    }
    println!("wrote {} (open it with: arena view {0})", output.display());
    Ok(ExitCode::SUCCESS)
}

pub fn export(file: &Path, output: &Path) -> Result<ExitCode> {
    let html = arena_viewer::export_file(file, &crate::games::viewer_games())?;
    std::fs::write(output, html).with_context(|| format!("cannot write {}", output.display()))?;
    println!("wrote {}", output.display());
    Ok(ExitCode::SUCCESS)
}
