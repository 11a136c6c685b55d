//! What a tournament session tells those who watch it (the progress bar, the SPRT, live
//! standings): one event type, sent by the runner after the journal holds what it
//! reports.

use crate::journal::Entry;

/// Progress as games finish.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Games in the journal (including those of earlier runs).
    pub done: u64,
    pub total: u64,
    /// Games played by this run.
    pub played: u64,
}

/// What a tournament session tells those who watch it, in journal order: each event comes after
/// the lines it reports are appended to the journal (a game's replay before its line), so a
/// watcher never sees a game the journal does not hold.
#[derive(Clone, Copy, Debug)]
pub enum SessionEvent<'a> {
    /// Games were journaled: their entries, in the order their lines were appended (given only
    /// when some watcher wants them, see [`SessionObserver::wants_entries`]; games of built-in
    /// bots are journaled in batches), and the progress after them.
    Journaled {
        entries: &'a [Entry],
        progress: Progress,
    },
    /// A watcher decided (the SPRT): no more games start, games in progress are abandoned.
    Decided,
}

/// Watches a session's events: a progress bar, live standings, a stop rule (SPRT).
pub trait SessionObserver {
    /// Whether it needs each game's entry ([`SessionEvent::Journaled`]'s `entries`). They come in
    /// the runner's batches unless some watcher [`stops`](Self::stops) the session.
    fn wants_entries(&self) -> bool {
        false
    }

    /// Whether it may stop the session (a stop rule, not a display): then every game is sent to
    /// the calling thread as soon as it is played, so that the rule stops the run right after the
    /// deciding game rather than a batch later. Such a watcher also gets the entries.
    fn stops(&self) -> bool {
        false
    }

    /// Sees every event; true to stop the session (a decision).
    fn observe(&mut self, event: &SessionEvent<'_>) -> bool;

    /// Whether it has decided already (on a resumed journal): then no game is played.
    fn decided(&self) -> bool {
        false
    }
}

/// A closure as a watcher that never decides (a progress bar).
pub struct Watch<F>(pub F);

impl<F: FnMut(&SessionEvent<'_>)> SessionObserver for Watch<F> {
    fn observe(&mut self, event: &SessionEvent<'_>) -> bool {
        (self.0)(event);
        false
    }
}
