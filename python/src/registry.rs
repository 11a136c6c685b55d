//! The games the environments offer, each with its protocol's side: the one list in this crate.
//! (The CLI's list is `arena-games`; it makes games playable by processes, this one by Python.)

use arena_game::{EnvSpec, GameDef, GameError, GameOptions};

use crate::text::{Call, Stream, TextSide};

/// Something to do with a game's definition, whatever its type.
pub trait Visit {
    type Out;
    fn visit<D: GameDef, P: TextSide<D::Game>>(self, def: D) -> Self::Out
    where
        D::Game: EnvSpec;
}

/// The game ids, in the order `arena list` shows them.
pub const GAMES: [&str; 5] = ["langwars", "langwars2", "negotiate", "spring2021", "coup"];

/// Calls `visit` with the definition of game `id`.
pub fn with_game<V: Visit>(id: &str, visit: V) -> Result<V::Out, String> {
    match id {
        "spring2021" => Ok(visit.visit::<_, Stream>(arena_spring2021::definition())),
        "coup" => Ok(visit.visit::<_, Call>(arena_coup::definition())),
        _ => match arena_langwars::definitions()
            .into_iter()
            .find(|def| def.id() == id)
        {
            Some(def) => Ok(visit.visit::<_, Stream>(def)),
            None => Err(format!("no game `{id}` (the games: {})", GAMES.join(", "))),
        },
    }
}

/// The rules' configuration of `def` for a league and options, each checked.
pub fn config_of<D: GameDef>(
    def: &D,
    variant: Option<&str>,
    options: &GameOptions,
) -> Result<<D::Game as arena_game::Game>::Config, String> {
    options
        .check(def.id(), def.options())
        .and_then(|()| def.config(variant, options))
        .map_err(|e: GameError| e.to_string())
}
