//! A Python policy as a bot process: the bot side of the game's protocol (the same reading a
//! built-in bot run as `arena bot` does), the observation the environments give, the policy's
//! answer written back as the protocol wants it.

use std::io::{BufRead, Write};

use arena_game::{EnvSpec, GameDef};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::registry::{Visit, config_of, with_game};
use crate::text::TextSide;

/// Reads through `inner` and keeps every byte consumed: the ask's exact text.
struct Tee<'a> {
    inner: &'a mut dyn BufRead,
    seen: Vec<u8>,
}

impl std::io::Read for Tee<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.seen.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

impl BufRead for Tee<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        if let Ok(buffer) = self.inner.fill_buf() {
            let amount = amount.min(buffer.len());
            self.seen.extend_from_slice(&buffer[..amount]);
        }
        self.inner.consume(amount);
    }
}

struct Serve<'py, 'a> {
    py: Python<'py>,
    policy: &'a Bound<'py, PyAny>,
    args: &'a [String],
    variant: Option<&'a str>,
    options: &'a arena_game::GameOptions,
}

impl Visit for Serve<'_, '_> {
    type Out = PyResult<()>;

    fn visit<D: GameDef, P: TextSide<D::Game>>(self, def: D) -> Self::Out
    where
        D::Game: EnvSpec,
    {
        let fail = |e: String| pyo3::exceptions::PyRuntimeError::new_err(e);
        let config = config_of(&def, self.variant, self.options).map_err(fail)?;
        let features = D::Game::feature_count(&config);
        let actions = D::Game::action_count(&config);
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut stdout = std::io::stdout();
        let io = |e: std::io::Error| fail(format!("cannot write the answer: {e}"));
        if let Some(ready) = P::ready() {
            writeln!(stdout, "{ready}").map_err(io)?;
            stdout.flush().map_err(io)?;
        }
        let mut previous = None;
        loop {
            let mut tee = Tee {
                inner: &mut input,
                seen: Vec::new(),
            };
            let Some(obs) = P::read(&mut tee, self.args, previous.as_ref()).map_err(fail)? else {
                return Ok(());
            };
            let text = if P::CALLS {
                let mut text = String::new();
                P::input(&obs, false, &mut text);
                text
            } else {
                String::from_utf8_lossy(&tee.seen).into_owned()
            };
            let mut feature_values = vec![0f32; features];
            D::Game::features(&obs, &mut feature_values);
            let mut mask = vec![0u8; actions];
            D::Game::legal_mask(&obs, &mut mask);
            let feature_bytes: Vec<u8> = feature_values
                .iter()
                .flat_map(|v| v.to_ne_bytes())
                .collect();
            let ask = PyDict::new(self.py);
            ask.set_item("text", text)?;
            ask.set_item("args", P::args(&obs))?;
            ask.set_item("features", PyBytes::new(self.py, &feature_bytes))?;
            ask.set_item("mask", PyBytes::new(self.py, &mask))?;
            let answer = self.policy.call1((ask,))?;
            let (wrote, printed) = if let Ok(index) = answer.extract::<usize>() {
                let action = D::Game::action_at(&obs, index).ok_or_else(|| {
                    fail(format!(
                        "action {index} is beyond the action table ({actions} entries)"
                    ))
                })?;
                P::encode(&obs, &action)
            } else if let Ok(text) = answer.extract::<String>() {
                (text, String::new())
            } else {
                answer.extract::<(String, String)>()?
            };
            if P::CALLS {
                // The move is appended to the history file; the kept cards are printed.
                let path = self
                    .args
                    .first()
                    .ok_or_else(|| fail("no history file".into()))?;
                let mut file = std::fs::OpenOptions::new()
                    .append(true)
                    .open(path)
                    .map_err(|e| fail(format!("cannot append to {path}: {e}")))?;
                file.write_all(wrote.as_bytes()).map_err(io)?;
                stdout.write_all(printed.as_bytes()).map_err(io)?;
                stdout.flush().map_err(io)?;
                return Ok(());
            }
            let line = wrote.split('\n').next().unwrap_or("");
            writeln!(stdout, "{line}").map_err(io)?;
            stdout.flush().map_err(io)?;
            previous = Some(obs);
        }
    }
}

/// Plays one game (a stream game) or one call (a call game) as a bot process with `policy`, a
/// callable from an ask (a dict: `text`, `args`, `features` and `mask` as bytes) to an answer (an
/// entry of the action table, or the answer's text). `args`: the program's arguments (a call
/// game's history file and arguments).
#[pyfunction]
#[pyo3(signature = (game, policy, args, league=None, options=None))]
pub fn serve(
    py: Python<'_>,
    game: &str,
    policy: &Bound<'_, PyAny>,
    args: Vec<String>,
    league: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<()> {
    let options = crate::options_of(options)?;
    with_game(
        game,
        Serve {
            py,
            policy,
            args: &args,
            variant: league,
            options: &options,
        },
    )
    .map_err(crate::error)?
}
