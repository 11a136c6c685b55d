//! Submissions of the contest server: an upload checked and stored, unpacked safely and built as
//! `--bot PATH` builds it (`arena_submit::prepare`), then probed against built-in bots; and the
//! built folder a worker plays an upload from (fetched from the database on another machine).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arena_submit::resolve::{Notice, ResolvedBot};

use crate::HostError;
use crate::archive;
use crate::host::{Host, language_of, sha256_hex};
use crate::records::Submission;

impl Host {
    fn submission_dir(&self, id: i64) -> PathBuf {
        self.data_dir.join("submissions").join(id.to_string())
    }

    /// How submissions are built: in the contest's build cache, their build steps in the bots'
    /// sandbox (arena-submit widens it for compilers), as `--bot PATH` builds them.
    fn submit_options(&self) -> Result<arena_submit::Options, String> {
        Ok(arena_submit::Options {
            contest_2014: self.game.conventions_2014(),
            cache_dir: Some(self.data_dir.join("builds")),
            sandbox: self.current_sandbox()?,
            ..arena_submit::Options::default()
        })
    }

    /// Takes an upload: checks the rate limit and the file, stores it, and builds it on a
    /// blocking thread. Returns the submission's id at once (state `building`).
    pub async fn submit(
        self: &Arc<Self>,
        user: i64,
        name: &str,
        bytes: Vec<u8>,
    ) -> Result<i64, HostError> {
        let limits = &self.contest.limits;
        let hour_ago = crate::store::now() - 3600;
        if self.store.uploads_since(user, hour_ago).await? >= i64::from(limits.uploads_per_hour) {
            return Err(HostError::TooMany(format!(
                "at most {} uploads an hour in this contest: try again later",
                limits.uploads_per_hour
            )));
        }
        let name = archive::upload_name(name).map_err(|e| HostError::Refused(e.0))?;
        if bytes.len() as u64 > limits.upload_bytes {
            return Err(HostError::Refused(format!(
                "the upload is {} bytes; this contest takes at most {}",
                bytes.len(),
                limits.upload_bytes
            )));
        }
        let league = self
            .store
            .submissions(Some(user))
            .await?
            .iter()
            .find(|s| s.active)
            .map_or(0, |s| s.league);
        // Acknowledged (the caller's 202) only once committed, language and all.
        let id = self
            .store
            .add_upload(
                user,
                &name,
                &bytes,
                &sha256_hex(&bytes),
                league,
                &language_of("upload", &name),
            )
            .await?;
        self.spawn_build(id, name, bytes, league);
        Ok(id)
    }

    /// Builds a submission on a blocking thread and records the outcome.
    fn spawn_build(self: &Arc<Self>, id: i64, name: String, bytes: Vec<u8>, league: i64) {
        let host = Arc::clone(self);
        tokio::spawn(async move {
            let built = {
                let host = Arc::clone(&host);
                tokio::task::spawn_blocking(move || host.build(id, &name, &bytes, league)).await
            };
            let (ok, log) = match built {
                Ok(Ok(log)) => (true, log),
                Ok(Err(log)) => (false, log),
                Err(e) => (false, format!("the build stopped: {e}")),
            };
            // Recording the outcome is retried (a full disk, a locked database) with a growing
            // pause until it is stored or the server stops; a server stopped meanwhile leaves the
            // submission `building`, and its next start builds it again (`resume_builds`).
            let mut pause = std::time::Duration::from_millis(200);
            while let Err(error) = host.store.finish_build(id, ok, &log).await {
                host.note_error(&error);
                if host.stopping() {
                    break;
                }
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(std::time::Duration::from_secs(5));
            }
            host.changed.notify_waiters();
        });
    }

    /// Builds again the submissions a previous process left `building` (killed mid-build).
    /// Returns how many.
    pub async fn resume_builds(self: &Arc<Self>) -> Result<usize, HostError> {
        let building: Vec<Submission> = self
            .store
            .submissions(None)
            .await?
            .into_iter()
            .filter(|s| s.state == "building")
            .collect();
        for submission in &building {
            let bytes = self.store.source(submission.id).await?.unwrap_or_default();
            self.spawn_build(
                submission.id,
                submission.source_name.clone(),
                bytes,
                submission.league,
            );
        }
        Ok(building.len())
    }

    /// Unpacks and builds a submission, then probes it (the start of a game against built-in
    /// bots, in the sandbox, as `arena tournament` probes its bots): the build log, or the reason
    /// it failed.
    fn build(&self, id: i64, name: &str, bytes: &[u8], league: i64) -> Result<String, String> {
        let dir = self.submission_dir(id);
        // The log is the contestant's: the submission's folder is `.`, the server's paths go.
        let public = |text: String| {
            arena_submit::redact::for_contestants(&text, &[(&dir, "."), (&self.data_dir, "<data>")])
        };
        self.build_log(name, bytes, league, &dir)
            .map(public)
            .map_err(public)
    }

    /// [`Host::build`]'s work, its log with the server's paths.
    fn build_log(
        &self,
        name: &str,
        bytes: &[u8],
        league: i64,
        dir: &Path,
    ) -> Result<String, String> {
        let _ = std::fs::remove_dir_all(dir);
        let path = archive::unpack(name, bytes, dir, &self.contest.limits).map_err(|e| e.0)?;
        if !arena_submit::is_submission(&path) {
            return Err(format!(
                "{name}: unknown language (no language of arena has this extension; `arena \
                 languages` lists them: .py .cpp .java .js ... or a zipped folder)"
            ));
        }
        let bot = ResolvedBot::submission(
            self.game.as_ref(),
            Some(name),
            &path,
            &self.submit_options()?,
        )
        .map_err(|e| format!("the build failed:\n{e}"))?;
        // The owner reads the build's kind even when it came from the cache (the same file
        // uploaded again).
        let mut log = bot
            .build
            .as_ref()
            .map(|build| format!("built as {}\n", build.kind))
            .unwrap_or_default();
        for notice in bot.notices() {
            if let Notice::Warning { text, .. } = notice {
                log.push_str(&format!("warning: {text}\n"));
            }
        }
        let variant = self
            .contest
            .leagues
            .get(league as usize)
            .and_then(|l| l.variant.clone());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the probe's runtime: {e}"))?;
        let probed = runtime.block_on(arena_submit::probe::probe(
            self.game.as_ref(),
            variant.as_deref(),
            &bot,
            &self.run_rules(),
            self.current_sandbox()?,
        ));
        match probed {
            Ok(()) => {
                log.push_str("started and answered its first turn against built-in bots\n");
                Ok(log)
            }
            Err(why) => Err(format!("{log}{why}")),
        }
    }

    /// An uploaded submission resolved as `--bot PATH` resolves it (its launcher in its built
    /// folder), seated under its owner's name: its source is fetched from the database when this
    /// machine does not have it (checked against its SHA-256), unpacked with the contest's limits
    /// and built in the sandbox, once per process (the build cache keeps it by content hash across
    /// processes).
    pub(crate) fn prepared_bot(
        &self,
        submission: &Submission,
        handle: &tokio::runtime::Handle,
    ) -> Result<ResolvedBot, String> {
        // Held while building: two games of a new submission build it once.
        let mut prepared = self
            .prepared
            .lock()
            .map_err(|_| "the build table's lock was poisoned by a panic".to_string())?;
        if let Some(bot) = prepared.get(&submission.id)
            && bot
                .seat
                .workdir
                .as_ref()
                .is_some_and(|folder| folder.exists())
        {
            return Ok(bot.clone());
        }
        // By content and id: a worker's folder may serve several contests (their ids collide, their
        // contents do not).
        let dir = self
            .data_dir
            .join("sources")
            .join(&submission.source_sha256)
            .join(submission.id.to_string());
        let entry = |dir: &Path| {
            if submission
                .source_name
                .to_ascii_lowercase()
                .ends_with(".zip")
            {
                dir.join("bot")
            } else {
                dir.join(&submission.source_name)
            }
        };
        if !entry(&dir).exists() {
            let source = handle
                .block_on(self.store.source(submission.id))
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("submission {} has no source", submission.id))?;
            if sha256_hex(&source) != submission.source_sha256 {
                return Err(format!(
                    "submission {}: the source read from the database does not match its SHA-256",
                    submission.id
                ));
            }
            // Unpacked beside and renamed into place: another worker process sharing the folder
            // sees all of it or nothing.
            let partial = dir.with_extension(format!("partial-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&partial);
            archive::unpack(
                &submission.source_name,
                &source,
                &partial,
                &self.contest.limits,
            )
            .map_err(|e| e.0)?;
            if std::fs::rename(&partial, &dir).is_err() {
                let _ = std::fs::remove_dir_all(&partial);
                if !entry(&dir).exists() {
                    return Err(format!(
                        "submission {}: cannot unpack it in {}",
                        submission.id,
                        dir.display()
                    ));
                }
            }
        }
        let path = entry(&dir);
        let bot = ResolvedBot::submission(
            self.game.as_ref(),
            Some(&submission.user),
            &path,
            &self.submit_options()?,
        )
        .map_err(|e| format!("submission {}: {e}", submission.id))?;
        prepared.insert(submission.id, bot.clone());
        Ok(bot)
    }
}
