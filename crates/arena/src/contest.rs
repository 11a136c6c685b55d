//! `arena host CONTEST.toml` (the contest server, `arena_host`), `arena worker` and `arena submit` (its client): the commands of a contest.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use arena_host::{Contest, Host, HostOptions};

#[derive(clap::Args, Debug)]
pub struct HostArgs {
    /// The contest file (see docs/contest.md).
    contest: PathBuf,
    /// The database: `sqlite://FILE` (default: CONTEST.db beside the contest file) or
    /// `postgres://USER@HOST/DATABASE`.
    #[arg(long)]
    db: Option<String>,
    /// Where uploads and their builds are kept (default: CONTEST-data beside the contest file).
    #[arg(long)]
    data: Option<PathBuf>,
    /// Address of the web pages and the API (0.0.0.0:PORT to let contestants on other machines in).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// Games at once on this machine (default: the contest file's `workers`, else one per core);
    /// 0: serve the pages and schedule only, `arena worker` processes play.
    #[arg(long)]
    workers: Option<usize>,
    /// Seconds a claimed game stays this server's without a heartbeat (renewed every third).
    #[arg(long, default_value_t = 30.0, value_parser = parse_lease)]
    lease: f64,
    /// Do not pin each worker's bots to a core of their own.
    #[arg(long)]
    no_pin: bool,
    /// Write the results as an `arena tournament` folder (report.html, summary.json,
    /// leaderboard.csv, results.jsonl, replays) in DIR and exit, without serving.
    #[arg(long, value_name = "DIR")]
    export: Option<PathBuf>,
    #[command(flatten)]
    sandbox: crate::options::SandboxOptions,
}

#[derive(clap::Args, Debug)]
pub struct WorkerArgs {
    /// The contest's database, as `arena host --db` was given it (`postgres://USER@HOST/DATABASE`).
    #[arg(long)]
    db: String,
    /// Games at once (default: one per core).
    #[arg(long, value_parser = crate::options::parse_jobs)]
    jobs: Option<usize>,
    /// Seconds a claimed game stays this worker's without a heartbeat (renewed every third): a
    /// worker killed or cut off loses its games to the others after this long.
    #[arg(long, default_value_t = 30.0, value_parser = parse_lease)]
    lease: f64,
    /// Languages this machine plays, comma-separated (default: those whose toolchain is installed,
    /// see `arena languages`); built-in bots and zipped folders always.
    #[arg(long, value_delimiter = ',')]
    languages: Option<Vec<String>>,
    /// Where the submissions' sources and builds are kept (default: ~/.cache/arena/worker, or
    /// $ARENA_CACHE_DIR/worker).
    #[arg(long)]
    data: Option<PathBuf>,
    /// Do not pin each game's bots to a core of their own.
    #[arg(long)]
    no_pin: bool,
    #[command(flatten)]
    sandbox: crate::options::SandboxOptions,
}

fn parse_lease(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if (0.3..=86_400.0).contains(&seconds) => Ok(seconds),
        _ => Err(format!(
            "{text:?}: give the lease in seconds, from 0.3 to 86400 (30 is a good start)"
        )),
    }
}

#[derive(clap::Args, Debug)]
pub struct SubmitArgs {
    /// The contest server (`http://HOST:PORT`).
    #[arg(long)]
    server: String,
    /// Your token (default: the ARENA_TOKEN environment variable, which keeps it out of `ps`).
    #[arg(long)]
    token: Option<String>,
    /// A source file (its extension names the language), a .zip, or a folder (zipped and sent).
    file: PathBuf,
    /// Wait for the build and print its log (exit status 1 if it failed).
    #[arg(long)]
    wait: bool,
}

/// `CONTEST.EXT` → `CONTEST` + `suffix`, beside it.
fn beside(contest: &Path, suffix: &str) -> PathBuf {
    let stem = contest
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "contest".into());
    contest.with_file_name(format!("{stem}{suffix}"))
}

/// A server others can reach does not start with tokens anyone could know (the examples') or
/// guess (short ones); on the loopback, for trying a contest file, they are fine.
fn refuse_weak_tokens(contest: &Contest, listen: &str) -> Result<()> {
    use std::net::ToSocketAddrs;
    let reachable = listen
        .to_socket_addrs()
        .map(|mut addresses| addresses.any(|a| !a.ip().is_loopback()))
        .unwrap_or(true);
    let weak = contest.weak_tokens();
    if reachable && !weak.is_empty() {
        bail!(
            "refusing to listen on {listen}, where others can reach the server: {}. Make a token \
             with `arena token` for each person, put it in the contest file and start again (any \
             token is accepted on 127.0.0.1)",
            weak.join("; ")
        );
    }
    Ok(())
}

/// `arena token`: a new secret for a contest file's `token = "..."` (256 bits, as hex).
pub fn token() -> Result<ExitCode> {
    println!("{}", arena_host::auth::fresh_secret()?);
    Ok(ExitCode::SUCCESS)
}

pub fn host(args: HostArgs) -> Result<ExitCode> {
    // What a predecessor killed with -9 left (its games' and sandboxes' folders).
    arena_core::folders::sweep_stale();
    let mut contest = Contest::load(&args.contest)?;
    if let Some(workers) = args.workers {
        contest.workers = Some(workers);
    }
    let game: Arc<dyn arena_core::registry::GameEntry> = Arc::from(
        arena_core::registry::with_options(
            crate::games::find_game(&contest.game)?,
            contest.options.clone(),
        )
        .map_err(|e| anyhow::anyhow!("{}: [options]: {e}", args.contest.display()))?,
    );
    refuse_weak_tokens(&contest, &args.listen)?;
    let contest_path = std::path::absolute(&args.contest).context("the contest file's path")?;
    let db = args
        .db
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}", beside(&contest_path, ".db").display()));
    let data_dir = args
        .data
        .clone()
        .unwrap_or_else(|| beside(&contest_path, "-data"));
    // Submissions are processes: the sandbox is needed from the start, and made again when a
    // build finds a toolchain outside the system's folders (it shows them read-only).
    let sandbox_factory = sandbox_factory(&args.sandbox);
    let runtime = crate::runtime::server_runtime()?;
    runtime.block_on(async move {
        let host = Host::open(HostOptions {
            contest,
            db: db.clone(),
            schema: None,
            data_dir,
            game,
            sandbox: None,
            sandbox_factory: Some(sandbox_factory),
            pin_cpus: !args.no_pin,
            workers: arena_host::host::WorkerSettings {
                lease: std::time::Duration::from_secs_f64(args.lease),
                languages: None,
            },
        })
        .await?;
        if let Some(dir) = &args.export {
            let games = host.export(dir, arena_tournament::summary::DEFAULT_BOOTSTRAP).await?;
            eprintln!("arena host: wrote {games} games to {} (report.html, summary.json, leaderboard.csv)", dir.display());
            return Ok(ExitCode::SUCCESS);
        }
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        let address = listener.local_addr().context("the listening address")?;
        let workers = host.workers();
        // The first line says where: scripts (and the tests) read it.
        println!("arena host: http://{address}/");
        eprintln!(
            "arena host: {} ({}, {}), {workers} workers, database {db}",
            host.contest.name,
            host.contest.game,
            host.contest.format.name()
        );
        host.resume_builds().await?;
        if !host.revoked.is_empty() {
            eprintln!(
                "arena host: no longer in the contest file, signed out and their bots stopped: {}",
                host.revoked.join(", ")
            );
        }
        if host.requeued > 0 {
            eprintln!(
                "arena host: {} games the last run left unfinished are queued again",
                host.requeued
            );
        }
        let scheduler = tokio::spawn(Arc::clone(&host).run_scheduler());
        let _errors = report_errors(&host);
        let threads = host.spawn_workers(workers, false);
        let scheduler_ended = watch(&host, &scheduler, workers);
        let app = arena_host::api::router(Arc::clone(&host));
        let served = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
            .with_graceful_shutdown(async move {
                // Ctrl-C, SIGTERM, or a scheduler or worker that stopped (its error is reported
                // below).
                tokio::select! {
                    _ = crate::runtime::interruptible(std::future::pending::<()>()) => {}
                    _ = scheduler_ended.notified() => {}
                }
            })
            .await;
        eprintln!("arena host: stopping after the games being played");
        host.stop();
        let joined = join_workers(threads).await?;
        joined?;
        if workers > 0 {
            // Its heartbeat task may not get to it before the runtime ends.
            let _ = host.store.set_worker_state(&host.worker_id, "stopped").await;
        }
        scheduler.await.context("the scheduler")??;
        served.context("the web server")?;
        host.store.close().await;
        Ok::<_, anyhow::Error>(ExitCode::SUCCESS)
    })
}

/// `arena worker --db URL`: claims the contest's games from the database and plays them here,
/// until SIGTERM or Ctrl-C, which drain it: the games it holds are finished and recorded, no new
/// one is claimed, and it exits 0.
pub fn worker(args: WorkerArgs) -> Result<ExitCode> {
    // What a predecessor killed with -9 left (its games' and sandboxes' folders).
    arena_core::folders::sweep_stale();
    if let Some(languages) = &args.languages {
        for language in languages {
            if language != "builtin"
                && language != "folder"
                && arena_submit::languages::language(language).is_none()
            {
                bail!("--languages: {language:?} is not a language of `arena languages`");
            }
        }
    }
    let data_dir = match &args.data {
        Some(dir) => dir.clone(),
        None => std::env::var_os("ARENA_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/arena")))
            .ok_or_else(|| anyhow!("give --data DIR (no HOME to keep the builds in)"))?
            .join("worker"),
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let sandbox_factory = sandbox_factory(&args.sandbox);
    let runtime = crate::runtime::server_runtime()?;
    runtime.block_on(async move {
        let host = arena_host::Host::attach(
            arena_host::host::AttachOptions {
                db: args.db.clone(),
                schema: None,
                data_dir,
                sandbox: None,
                sandbox_factory: Some(sandbox_factory),
                pin_cpus: !args.no_pin,
                workers: arena_host::host::WorkerSettings {
                    lease: std::time::Duration::from_secs_f64(args.lease),
                    languages: args.languages.clone(),
                },
            },
            |id, options| {
                let game = crate::games::find_game(id).map_err(|e| format!("{e:#}"))?;
                arena_core::registry::with_options(game, options.clone())
                    .map(Arc::from)
                    .map_err(|e| e.to_string())
            },
        )
        .await?;
        // The first line says who: scripts (and the tests) read it.
        println!("arena worker: {}", host.worker_id);
        eprintln!(
            "arena worker: {} ({}), {jobs} games at once, lease {} s",
            host.contest.name, host.contest.game, args.lease
        );
        if host.requeued > 0 {
            eprintln!(
                "arena worker: {} games of workers that are gone are queued again",
                host.requeued
            );
        }
        let threads = host.spawn_workers(jobs, false);
        let errors = report_errors(&host);
        // SIGTERM or Ctrl-C: drain.
        let _ = crate::runtime::interruptible(async {
            while host.workers_running() > 0 {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
        })
        .await;
        eprintln!("arena worker: finishing the games it holds, claiming no more");
        host.stop();
        let joined = join_workers(threads).await?;
        let done: u64 = joined?.iter().map(|counts| counts.completed).sum();
        // The heartbeat task marks the worker stopped once its threads are gone.
        for _ in 0..50 {
            let stopped = host
                .store
                .workers()
                .await
                .map(|all| {
                    all.iter()
                        .any(|w| w.id == host.worker_id && w.state == "stopped")
                })
                .unwrap_or(true);
            if stopped {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        errors.abort();
        eprintln!("arena worker: stopped after {done} games");
        host.store.close().await;
        Ok::<_, anyhow::Error>(ExitCode::SUCCESS)
    })
}

/// Says on stderr each new database error the workers met (they retry).
fn report_errors(host: &Arc<Host>) -> tokio::task::JoinHandle<()> {
    let host = Arc::clone(host);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            let error = host.last_error.lock().ok().and_then(|mut e| e.take());
            if let Some(error) = error {
                eprintln!("arena: {error} (retrying)");
            }
        }
    })
}

/// A notification when the scheduler's task ends or a worker stops (either only happens on an
/// error or a stop): the server then stops rather than serve a contest that no longer plays.
fn watch(
    host: &Arc<Host>,
    scheduler: &tokio::task::JoinHandle<Result<(), arena_host::HostError>>,
    workers: usize,
) -> Arc<tokio::sync::Notify> {
    let ended = Arc::new(tokio::sync::Notify::new());
    let abort = scheduler.abort_handle();
    let watcher = Arc::clone(&ended);
    let host = Arc::clone(host);
    tokio::spawn(async move {
        while !abort.is_finished() && host.workers_running() == workers {
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        }
        watcher.notify_one();
    });
    ended
}

pub fn submit(args: SubmitArgs) -> Result<ExitCode> {
    let server = args.server.trim_end_matches('/');
    let (name, bytes) = if args.file.is_dir() {
        let name = args
            .file
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "bot".into());
        let bytes = arena_host::archive::zip_folder(&args.file).map_err(|e| anyhow!(e))?;
        (format!("{name}.zip"), bytes)
    } else {
        let name = args
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| anyhow!("{}: not a file or a folder", args.file.display()))?;
        let bytes = std::fs::read(&args.file)
            .with_context(|| format!("cannot read {}", args.file.display()))?;
        (name, bytes)
    };
    let name = arena_host::archive::upload_name(&name).map_err(|e| anyhow!("{e}"))?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let token = match args.token.clone() {
        Some(token) => token,
        None => std::env::var("ARENA_TOKEN").map_err(|_| {
            anyhow!("give --token TOKEN or set ARENA_TOKEN (the organiser gave it to you)")
        })?,
    };
    let auth = format!("Bearer {token}");
    let mut response = agent
        .post(&format!("{server}/api/submissions?name={name}"))
        .header("Authorization", &auth)
        .content_type("application/octet-stream")
        .send(&bytes[..])
        .with_context(|| format!("cannot reach {server}"))?;
    let status = response.status();
    let body: serde_json::Value = read_json(response.body_mut())?;
    if status.as_u16() == 413 {
        // axum refuses the body before the contest's handler sees it: say the contest's limit.
        let limit = agent
            .get(&format!("{server}/api/contest"))
            .call()
            .ok()
            .and_then(|mut r| read_json(r.body_mut()).ok())
            .and_then(|c| c["upload_bytes"].as_u64());
        bail!(
            "the upload is {} bytes, over this contest's limit{}: make it smaller (a zip of the \
             sources only, no builds)",
            bytes.len(),
            limit.map(|l| format!(" of {l} bytes")).unwrap_or_default()
        );
    }
    if !status.is_success() {
        bail!(
            "the server refused the upload ({status}): {}",
            body["error"].as_str().unwrap_or("no reason given")
        );
    }
    let id = body["id"]
        .as_i64()
        .ok_or_else(|| anyhow!("the server's answer has no submission id: {body}"))?;
    println!("submitted {} as submission {id}", args.file.display());
    if !args.wait {
        return Ok(ExitCode::SUCCESS);
    }
    loop {
        let mut response = agent
            .get(&format!("{server}/api/submissions/{id}"))
            .header("Authorization", &auth)
            .call()
            .with_context(|| format!("cannot reach {server}"))?;
        let status = response.status();
        let body = read_json(response.body_mut())?;
        if !status.is_success() {
            bail!(
                "the server answered {status}: {}",
                body["error"].as_str().unwrap_or("no reason given")
            );
        }
        match body["state"].as_str() {
            Some("building") => std::thread::sleep(std::time::Duration::from_millis(300)),
            Some(state) => {
                let log = body["build_log"].as_str().unwrap_or("");
                print!("{log}");
                if !log.is_empty() && !log.ends_with('\n') {
                    println!();
                }
                println!("submission {id}: {state}");
                return Ok(if state == "failed" {
                    ExitCode::from(1)
                } else {
                    ExitCode::SUCCESS
                });
            }
            None => bail!("the server's answer has no state: {body}"),
        }
    }
}

/// The server's answer as JSON; an answer that is not JSON (a proxy's page, axum's own refusal of
/// a body over the limit) becomes `{"error": TEXT}`, so that the caller can say it.
fn read_json(body: &mut ureq::Body) -> Result<serde_json::Value> {
    let mut text = String::new();
    body.as_reader()
        .take(16 << 20)
        .read_to_string(&mut text)
        .context("cannot read the server's answer")?;
    Ok(serde_json::from_str(&text).unwrap_or_else(|_| {
        let short: String = text.trim().chars().take(300).collect();
        serde_json::json!({ "error": short })
    }))
}

/// Waits (off the runtime's threads) for the worker threads `Host::spawn_workers` started: what
/// each did, or the first error; a panicked worker is an error.
async fn join_workers(
    threads: Vec<
        std::thread::JoinHandle<Result<arena_host::host::WorkerCounts, arena_host::HostError>>,
    >,
) -> Result<Result<Vec<arena_host::host::WorkerCounts>, arena_host::HostError>> {
    let joined = tokio::task::spawn_blocking(move || {
        threads
            .into_iter()
            .map(|t| t.join().map_err(|_| anyhow!("a worker panicked")))
            .collect::<Result<Vec<_>>>()
    })
    .await
    .context("the workers")??;
    Ok(joined.into_iter().collect())
}

/// How a contest's server or worker makes the bots' sandbox: from the command line's options,
/// again whenever a build finds a toolchain outside the system's folders.
fn sandbox_factory(options: &crate::options::SandboxOptions) -> arena_host::host::SandboxFactory {
    let options = options.clone();
    Arc::new(move || options.sandbox(true).map_err(|e| format!("{e:#}")))
}
