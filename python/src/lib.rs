//! `arena_envs._core`: the Rust side of the Python package. The Python modules (`arena_envs/`)
//! wrap these classes into PettingZoo and Gymnasium environments.
//!
//! - [`text`]: the protocol's text on stream and call games; [`core`]: one game driven from
//!   outside (the runner's ask loop without agents); [`episode`]: one environment (text, action
//!   table, replay); [`batch`]: N games per call into caller-owned arrays; [`serve`]: a Python
//!   policy as a bot process; [`registry`]: the games offered.

mod batch;
mod core;
mod episode;
mod registry;
mod serve;
mod text;

use std::sync::Arc;

use arena_game::{EnvSpec, GameDef, GameOptions, OptionValue};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::batch::{Batch, DynBatch, Outputs};
use crate::core::SeatKind;
use crate::episode::{DynEnv, Episode, OutcomeParts, RoundAnswer};
use crate::registry::{GAMES, Visit, config_of, with_game};
use crate::text::TextSide;

fn error(message: String) -> PyErr {
    PyValueError::new_err(message)
}

/// Options from Python keywords: `True` a flag on (`False` not set), an int a number, a str a text.
fn options_of(options: Option<&Bound<'_, PyDict>>) -> PyResult<GameOptions> {
    let mut set = GameOptions::default();
    let Some(options) = options else {
        return Ok(set);
    };
    for (key, value) in options.iter() {
        let name: String = key.extract()?;
        let value = if let Ok(flag) = value.extract::<bool>() {
            if !flag {
                continue;
            }
            OptionValue::Flag
        } else if let Ok(number) = value.extract::<u64>() {
            OptionValue::Number(number)
        } else if let Ok(text) = value.extract::<String>() {
            OptionValue::Text(text)
        } else {
            return Err(error(format!(
                "option {name}: give True, a whole number or a string"
            )));
        };
        set.set(&name, value);
    }
    Ok(set)
}

fn seats_of(seats: Vec<Option<String>>) -> Vec<SeatKind> {
    seats
        .into_iter()
        .map(|seat| seat.map_or(SeatKind::Agent, SeatKind::Builtin))
        .collect()
}

/// What a game offers: players, table sizes and labels, bots, leagues, options.
struct Describe<'a> {
    variant: Option<&'a str>,
    options: &'a GameOptions,
}

struct Description {
    id: &'static str,
    players: usize,
    actions: usize,
    features: usize,
    labels: Vec<String>,
    bots: Vec<(&'static str, &'static str)>,
    variants: Vec<&'static str>,
    options: Vec<(&'static str, &'static str)>,
    calls: bool,
    about: &'static str,
}

impl Visit for Describe<'_> {
    type Out = Result<Description, String>;

    fn visit<D: GameDef, P: TextSide<D::Game>>(self, def: D) -> Self::Out
    where
        D::Game: EnvSpec,
    {
        let config = config_of(&def, self.variant, self.options)?;
        let actions = D::Game::action_count(&config);
        Ok(Description {
            id: def.id(),
            players: def.players(),
            actions,
            features: D::Game::feature_count(&config),
            labels: (0..actions)
                .map(|i| D::Game::action_label(&config, i))
                .collect(),
            bots: def.bots().iter().map(|b| (b.name, b.about)).collect(),
            variants: def.variants().to_vec(),
            options: def.options().iter().map(|o| (o.name, o.help)).collect(),
            calls: P::CALLS,
            about: def.about(),
        })
    }
}

/// A game's description as a dict: `id`, `players`, `action_count`, `feature_count`,
/// `action_labels`, `bots` (name → about), `leagues`, `options` (name → help), `calls`, `about`.
#[pyfunction]
#[pyo3(signature = (game, league=None, options=None))]
fn describe<'py>(
    py: Python<'py>,
    game: &str,
    league: Option<&str>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let options = options_of(options)?;
    let d = with_game(
        game,
        Describe {
            variant: league,
            options: &options,
        },
    )
    .and_then(|d| d)
    .map_err(error)?;
    let dict = PyDict::new(py);
    dict.set_item("id", d.id)?;
    dict.set_item("players", d.players)?;
    dict.set_item("action_count", d.actions)?;
    dict.set_item("feature_count", d.features)?;
    dict.set_item("action_labels", d.labels)?;
    let bots = PyDict::new(py);
    for (name, about) in d.bots {
        bots.set_item(name, about)?;
    }
    dict.set_item("bots", bots)?;
    dict.set_item("leagues", d.variants)?;
    let opts = PyDict::new(py);
    for (name, help) in d.options {
        opts.set_item(name, help)?;
    }
    dict.set_item("options", opts)?;
    dict.set_item("calls", d.calls)?;
    dict.set_item("about", d.about)?;
    Ok(dict)
}

/// The game ids.
#[pyfunction]
fn games() -> Vec<&'static str> {
    GAMES.to_vec()
}

struct MakeEnv<'a> {
    variant: Option<&'a str>,
    options: &'a GameOptions,
    seats: Vec<SeatKind>,
    seed: u64,
    record: bool,
}

impl Visit for MakeEnv<'_> {
    type Out = Result<Box<dyn DynEnv>, String>;

    fn visit<D: GameDef, P: TextSide<D::Game>>(self, def: D) -> Self::Out
    where
        D::Game: EnvSpec,
    {
        let config = config_of(&def, self.variant, self.options)?;
        let episode =
            Episode::<D, P>::new(Arc::new(def), config, self.seats, self.seed, self.record)?;
        Ok(Box::new(episode))
    }
}

/// One game: seats played from Python (`None` in `seats`) or by built-in bots (their names).
#[pyclass(unsendable, module = "arena_envs._core")]
struct Env {
    inner: Box<dyn DynEnv>,
    features: usize,
    actions: usize,
    players: usize,
    /// Addresses of the caller's feature and mask arrays (see [`Env::bind`]).
    bound: Option<(usize, usize)>,
}

impl Env {
    /// Writes the current ask's features and mask into the bound arrays.
    fn write_bound(&self) -> PyResult<()> {
        let (features, mask) = self
            .bound
            .ok_or_else(|| error("no arrays bound: call bind() first".into()))?;
        // SAFETY: `bind`'s caller (the Python wrapper) keeps both arrays alive, writable, C-contiguous
        // float32 / int8 of these lengths, for as long as this object lives.
        let (features, mask) = unsafe {
            (
                std::slice::from_raw_parts_mut(features as *mut f32, self.features),
                std::slice::from_raw_parts_mut(mask as *mut u8, self.actions),
            )
        };
        self.inner.features(features);
        self.inner.mask(mask);
        Ok(())
    }
}

#[pymethods]
impl Env {
    #[new]
    #[pyo3(signature = (game, seats, seed=0, league=None, options=None, record=false))]
    fn new(
        game: &str,
        seats: Vec<Option<String>>,
        seed: u64,
        league: Option<&str>,
        options: Option<&Bound<'_, PyDict>>,
        record: bool,
    ) -> PyResult<Self> {
        let options = options_of(options)?;
        let players = seats.len();
        let description = with_game(
            game,
            Describe {
                variant: league,
                options: &options,
            },
        )
        .and_then(|d| d)
        .map_err(error)?;
        let inner = with_game(
            game,
            MakeEnv {
                variant: league,
                options: &options,
                seats: seats_of(seats),
                seed,
                record,
            },
        )
        .and_then(|env| env)
        .map_err(error)?;
        Ok(Env {
            inner,
            features: description.features,
            actions: description.actions,
            players,
            bound: None,
        })
    }

    /// Binds the arrays that [`Env::step_bound`] and [`Env::reset_bound`] write each ask's
    /// features and mask to: float32 of `feature_count` and int8 of `action_count` entries, by
    /// address. The caller keeps them alive (and unmoved) as long as this object.
    fn bind(&mut self, features: usize, mask: usize) {
        self.bound = Some((features, mask));
    }

    /// `reset`, then the first ask written to the bound arrays; whether the game is already over.
    fn reset_bound(&mut self, seed: u64) -> PyResult<bool> {
        self.inner.reset(seed).map_err(error)?;
        self.write_bound()?;
        Ok(self.inner.current().is_none())
    }

    /// Answers with table entry `index`, writes the next ask to the bound arrays, and returns
    /// `(reward of seat, over)`: the one call of a fast single-agent step.
    fn step_bound(&mut self, index: usize, seat: usize) -> PyResult<(f32, bool)> {
        self.inner.step_index(index).map_err(error)?;
        self.write_bound()?;
        if self.inner.current().is_some() {
            return Ok((0.0, false));
        }
        let mut rewards = vec![0f32; self.players];
        self.inner.rewards(&mut rewards);
        Ok((rewards.get(seat).copied().unwrap_or(0.0), true))
    }

    fn reset(&mut self, seed: u64) -> PyResult<()> {
        self.inner.reset(seed).map_err(error)
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.inner.seed()
    }

    /// Asks answered since this object was made, by anyone (built-in bots included).
    #[getter]
    fn asks(&self) -> u64 {
        self.inner.asks()
    }

    /// The seat asked now, `None` once the game is over.
    fn current(&self) -> Option<usize> {
        self.inner.current()
    }

    fn text(&self) -> String {
        self.inner.text()
    }

    fn args(&self) -> Vec<String> {
        self.inner.args()
    }

    /// The features as float32 bytes.
    fn features<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let mut out = vec![0f32; self.features];
        self.inner.features(&mut out);
        let bytes: Vec<u8> = out.iter().flat_map(|v| v.to_ne_bytes()).collect();
        PyBytes::new(py, &bytes)
    }

    /// The legal-action mask as bytes (0 or 1).
    fn mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let mut out = vec![0u8; self.actions];
        self.inner.mask(&mut out);
        PyBytes::new(py, &out)
    }

    fn step_index(&mut self, index: usize) -> PyResult<()> {
        self.inner.step_index(index).map_err(error)
    }

    #[pyo3(signature = (wrote, stdout=""))]
    fn step_text(&mut self, wrote: &str, stdout: &str) -> PyResult<()> {
        self.inner.step_text(wrote, stdout).map_err(error)
    }

    fn index_text(&self, index: usize) -> Option<(String, String)> {
        self.inner.index_text(index)
    }

    fn rewards(&self) -> Vec<f32> {
        let mut out = vec![0f32; self.players];
        self.inner.rewards(&mut out);
        out
    }

    /// `(scores, exact scores, ranks, winner)` once the game is over.
    fn outcome(&self) -> Option<OutcomeParts> {
        self.inner.outcome()
    }

    fn faults(&self) -> Vec<Vec<String>> {
        self.inner.faults()
    }

    /// The players asked at once from now on (a parallel step), the current one first.
    fn round(&mut self) -> Vec<usize> {
        self.inner.round()
    }

    /// Round player `k`'s text, arguments, features (float32 bytes) and mask (bytes).
    fn round_observation<'py>(
        &self,
        py: Python<'py>,
        k: usize,
    ) -> (
        String,
        Vec<String>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    ) {
        let mut features = vec![0f32; self.features];
        self.inner.round_features(k, &mut features);
        let bytes: Vec<u8> = features.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let mut mask = vec![0u8; self.actions];
        self.inner.round_mask(k, &mut mask);
        (
            self.inner.round_text(k),
            self.inner.round_args(k),
            PyBytes::new(py, &bytes),
            PyBytes::new(py, &mask),
        )
    }

    /// The round's answers in its order: each an int (a table entry) or `(written, printed)`.
    fn step_round(&mut self, answers: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
        let mut given = Vec::with_capacity(answers.len());
        for answer in answers {
            given.push(if let Ok(index) = answer.extract::<usize>() {
                RoundAnswer::Index(index)
            } else {
                let (wrote, printed) = answer.extract::<(String, String)>()?;
                RoundAnswer::Text(wrote, printed)
            });
        }
        self.inner.step_round(given).map_err(error)
    }

    /// The finished game as an arena replay (JSON text), seats named `names`.
    fn replay_json(&mut self, names: Vec<String>) -> PyResult<String> {
        self.inner.replay_json(&names).map_err(error)
    }
}

struct MakeBatch<'a> {
    variant: Option<&'a str>,
    options: &'a GameOptions,
    seats: Vec<SeatKind>,
    count: usize,
}

impl Visit for MakeBatch<'_> {
    type Out = Result<Box<dyn DynBatch>, String>;

    fn visit<D: GameDef, P: TextSide<D::Game>>(self, def: D) -> Self::Out
    where
        D::Game: EnvSpec,
    {
        let config = config_of(&def, self.variant, self.options)?;
        Ok(Box::new(Batch::<D>::new(
            Arc::new(def),
            config,
            self.seats,
            self.count,
        )?))
    }
}

/// N games stepped together (see `batch.rs`); the arrays are given by address by the Python
/// wrapper, which checks their types and shapes.
#[pyclass(unsendable, module = "arena_envs._core")]
struct BatchCore {
    inner: Box<dyn DynBatch>,
    features: usize,
    actions: usize,
    players: usize,
}

/// Views of the caller's arrays.
///
/// # Safety
/// Each address must point to a live, writable, C-contiguous array of the stated element type and
/// length, not aliased by another: the Python wrapper allocates them so.
unsafe fn outputs<'a>(
    n: usize,
    features: usize,
    actions: usize,
    players: usize,
    addresses: (usize, usize, usize, usize, usize),
) -> Outputs<'a> {
    let (f, m, a, r, d) = addresses;
    unsafe {
        Outputs {
            features: std::slice::from_raw_parts_mut(f as *mut f32, n * features),
            masks: std::slice::from_raw_parts_mut(m as *mut u8, n * actions),
            acting: std::slice::from_raw_parts_mut(a as *mut i64, n),
            rewards: std::slice::from_raw_parts_mut(r as *mut f32, n * players),
            dones: std::slice::from_raw_parts_mut(d as *mut u8, n),
        }
    }
}

#[pymethods]
impl BatchCore {
    #[new]
    #[pyo3(signature = (game, seats, count, league=None, options=None))]
    fn new(
        game: &str,
        seats: Vec<Option<String>>,
        count: usize,
        league: Option<&str>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let options = options_of(options)?;
        let players = seats.len();
        let description = with_game(
            game,
            Describe {
                variant: league,
                options: &options,
            },
        )
        .and_then(|d| d)
        .map_err(error)?;
        let inner = with_game(
            game,
            MakeBatch {
                variant: league,
                options: &options,
                seats: seats_of(seats),
                count,
            },
        )
        .and_then(|b| b)
        .map_err(error)?;
        Ok(BatchCore {
            inner,
            features: description.features,
            actions: description.actions,
            players,
        })
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Restarts every game (game i: seed + i) and writes their first asks.
    ///
    /// # Safety
    /// See [`outputs`]: called by the wrapper only.
    fn reset_into(
        &mut self,
        py: Python<'_>,
        seed: u64,
        addresses: (usize, usize, usize, usize, usize),
    ) -> PyResult<()> {
        let n = self.inner.len();
        // SAFETY: the wrapper passes the addresses of arrays it allocated with these shapes.
        let out = unsafe { outputs(n, self.features, self.actions, self.players, addresses) };
        let inner = &mut self.inner;
        py.allow_threads(|| inner.reset(seed, out)).map_err(error)
    }

    /// Steps every game with its action (an entry of the table; ignored for a game with no ask).
    fn step_into(
        &mut self,
        py: Python<'_>,
        actions: usize,
        addresses: (usize, usize, usize, usize, usize),
    ) -> PyResult<()> {
        let n = self.inner.len();
        // SAFETY: as in `reset_into`; `actions` is an int64 array of n entries.
        let (out, actions) = unsafe {
            (
                outputs(n, self.features, self.actions, self.players, addresses),
                std::slice::from_raw_parts(actions as *const i64, n),
            )
        };
        let inner = &mut self.inner;
        py.allow_threads(|| inner.step(actions, out)).map_err(error)
    }

    fn finished(&self) -> u64 {
        self.inner.finished()
    }

    /// Asks answered by anyone, built-in bots included.
    #[getter]
    fn asks(&self) -> u64 {
        self.inner.asks()
    }
}

struct EngineBench<'a> {
    variant: Option<&'a str>,
    bot: &'a str,
    seconds: f64,
}

impl Visit for EngineBench<'_> {
    type Out = Result<(u64, u64, f64), String>;

    fn visit<D: GameDef, P: TextSide<D::Game>>(self, def: D) -> Self::Out
    where
        D::Game: EnvSpec,
    {
        let config = config_of(&def, self.variant, &GameOptions::default())?;
        let seats = vec![SeatKind::Builtin(self.bot.to_string()); def.players()];
        let mut core = crate::core::Core::new(config, 0, seats, def.bots(), false)?;
        let started = std::time::Instant::now();
        let mut games = 1u64;
        while started.elapsed().as_secs_f64() < self.seconds {
            // Games between clock reads, to keep the clock out of the figure.
            for _ in 0..64 {
                core.reset(games, def.bots(), false)?;
                games += 1;
            }
        }
        Ok((core.asks, games, started.elapsed().as_secs_f64()))
    }
}

/// The engine alone: games of built-in `bot` on every seat, in process, for about `seconds`;
/// `(asks answered, games, seconds)`.
#[pyfunction]
#[pyo3(signature = (game, bot="random", seconds=1.0, league=None))]
fn engine_bench(
    py: Python<'_>,
    game: &str,
    bot: &str,
    seconds: f64,
    league: Option<&str>,
) -> PyResult<(u64, u64, f64)> {
    py.allow_threads(|| {
        with_game(
            game,
            EngineBench {
                variant: league,
                bot,
                seconds,
            },
        )
        .and_then(|r| r)
    })
    .map_err(error)
}

/// A method that does nothing: the cost of a call from Python, for the benchmark.
#[pyfunction]
fn noop() {}

#[pymodule]
fn _core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(describe, module)?)?;
    module.add_function(wrap_pyfunction!(games, module)?)?;
    module.add_function(wrap_pyfunction!(engine_bench, module)?)?;
    module.add_function(wrap_pyfunction!(noop, module)?)?;
    module.add_function(wrap_pyfunction!(serve::serve, module)?)?;
    module.add_class::<Env>()?;
    module.add_class::<BatchCore>()?;
    Ok(())
}
