//! N games stepped in one call: actions in, features, masks, rewards and ends out, in arrays the
//! caller owns (NumPy's), with no Python work per game. A game that ends starts again at once with
//! the next seed, and its slot then holds the new game's first ask.

use std::sync::Arc;

use arena_game::{Answer, EnvSpec, Game, GameDef};

use crate::core::{Core, SeatKind};

/// The output arrays of one call, each with one row per game.
pub struct Outputs<'a> {
    pub features: &'a mut [f32],
    pub masks: &'a mut [u8],
    /// Seat asked next in each game.
    pub acting: &'a mut [i64],
    /// Per game and seat: the reward of the game that just ended there (0 otherwise).
    pub rewards: &'a mut [f32],
    /// 1 where a game ended in this call.
    pub dones: &'a mut [u8],
}

pub trait DynBatch: Send {
    fn len(&self) -> usize;
    fn reset(&mut self, seed: u64, out: Outputs<'_>) -> Result<(), String>;
    fn step(&mut self, actions: &[i64], out: Outputs<'_>) -> Result<(), String>;
    /// Games finished since the last reset.
    fn finished(&self) -> u64;
    /// Asks answered by anyone, built-in bots included (the benchmark's count).
    fn asks(&self) -> u64;
}

pub struct Batch<D: GameDef> {
    def: Arc<D>,
    games: Vec<Core<D::Game>>,
    next_seed: u64,
    finished: u64,
    features: usize,
    actions: usize,
    players: usize,
}

impl<D: GameDef> Batch<D>
where
    D::Game: EnvSpec,
{
    pub fn new(
        def: Arc<D>,
        config: <D::Game as Game>::Config,
        seats: Vec<SeatKind>,
        count: usize,
    ) -> Result<Self, String> {
        let players = seats.len();
        let features = D::Game::feature_count(&config);
        let actions = D::Game::action_count(&config);
        let games = (0..count as u64)
            .map(|seed| Core::new(config.clone(), seed, seats.clone(), def.bots(), false))
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Batch {
            def,
            games,
            next_seed: count as u64,
            finished: 0,
            features,
            actions,
            players,
        })
    }

    fn check(&self, out: &Outputs<'_>) -> Result<(), String> {
        let n = self.games.len();
        let fits = out.features.len() == n * self.features
            && out.masks.len() == n * self.actions
            && out.acting.len() == n
            && out.rewards.len() == n * self.players
            && out.dones.len() == n;
        if fits {
            Ok(())
        } else {
            Err("the output arrays do not have the batch's shapes".into())
        }
    }

    fn write(&self, index: usize, out: &mut Outputs<'_>) {
        let game = &self.games[index];
        let features = &mut out.features[index * self.features..(index + 1) * self.features];
        let mask = &mut out.masks[index * self.actions..(index + 1) * self.actions];
        mask.fill(0);
        match game.current {
            Some(player) => {
                D::Game::features(&game.obs, features);
                D::Game::legal_mask(&game.obs, mask);
                out.acting[index] = player as i64;
            }
            None => {
                features.fill(0.0);
                out.acting[index] = -1;
            }
        }
    }
}

impl<D: GameDef> DynBatch for Batch<D>
where
    D::Game: EnvSpec,
{
    fn len(&self) -> usize {
        self.games.len()
    }

    fn reset(&mut self, seed: u64, mut out: Outputs<'_>) -> Result<(), String> {
        self.check(&out)?;
        let n = self.games.len() as u64;
        for (index, game) in self.games.iter_mut().enumerate() {
            game.reset(seed.wrapping_add(index as u64), self.def.bots(), false)?;
        }
        self.next_seed = seed.wrapping_add(n);
        self.finished = 0;
        out.rewards.fill(0.0);
        out.dones.fill(0);
        for index in 0..self.games.len() {
            self.write(index, &mut out);
        }
        Ok(())
    }

    fn step(&mut self, actions: &[i64], mut out: Outputs<'_>) -> Result<(), String> {
        self.check(&out)?;
        if actions.len() != self.games.len() {
            return Err(format!(
                "{} actions for {} games",
                actions.len(),
                self.games.len()
            ));
        }
        let players = self.players;
        for (index, &chosen) in actions.iter().enumerate() {
            let game = &mut self.games[index];
            if game.current.is_some() {
                let action = usize::try_from(chosen)
                    .ok()
                    .and_then(|chosen| D::Game::action_at(&game.obs, chosen))
                    .ok_or_else(|| {
                        format!("game {index}: action {chosen} is not in the action table")
                    })?;
                game.answer(Answer::Action(action), None);
            }
            let rewards = &mut out.rewards[index * players..(index + 1) * players];
            if game.current.is_none() {
                game.rewards(rewards);
                out.dones[index] = 1;
                self.finished += 1;
                let seed = self.next_seed;
                self.next_seed = self.next_seed.wrapping_add(1);
                game.reset(seed, self.def.bots(), false)?;
            } else {
                rewards.fill(0.0);
                out.dones[index] = 0;
            }
            self.write(index, &mut out);
        }
        Ok(())
    }

    fn finished(&self) -> u64 {
        self.finished
    }

    fn asks(&self) -> u64 {
        self.games.iter().map(|game| game.asks).sum()
    }
}
