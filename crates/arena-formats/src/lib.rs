//! The files arena writes for others to read, as a contract: the public types of the results line
//! ([`results::Entry`]) and of the replay's envelope ([`replay::Replay`]), the tournament folder's
//! file names ([`layout`]), the format versions and their one check ([`version`]), and the JSON
//! Schemas generated from those types ([`schema`], committed in `docs/schema/`).
//!
//! Pure: no I/O, no processes, no async runtime. It depends on arena-game for the record's leaf
//! types (seats, faults, scores, time policies), which describe their own schema.

pub mod layout;
pub mod plan;
pub mod replay;
pub mod results;
pub mod schema;
pub mod summary;
pub mod version;

pub use plan::Plan;
pub use replay::Replay;
pub use results::Entry;
pub use summary::{RunSummary, Summary};
