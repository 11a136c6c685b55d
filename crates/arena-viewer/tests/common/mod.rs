//! Fixtures shared by the server and browser tests: a tournament directory laid out as the tournament
//! runner writes it, with the committed replays gzip-compressed.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const GAMES: [&str; 5] = ["langwars", "langwars2", "negotiate", "spring2021", "coup"];

pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

pub fn fixture(game: &str) -> String {
    std::fs::read_to_string(data_dir().join(format!("{game}.json"))).expect("fixture")
}

pub fn gzip(text: &str) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(text.as_bytes()).expect("gzip");
    encoder.finish().expect("gzip")
}

/// `root/` holds two tournaments: `root/lw` (the three Lang Wars games as one "tournament" of four
/// bots, replays compressed) and `root/duels` (spring2021 and coup, one plain and one compressed), plus
/// a loose replay file.
pub fn tournament_tree(root: &Path) {
    const BOTS: [&str; 6] = [
        "greedy", "random", "random#2", "random#3", "slow", "greedy#2",
    ];
    let lw = root.join("lw");
    std::fs::create_dir_all(lw.join("replays")).expect("mkdir");
    let mut results = String::new();
    for (index, game) in ["langwars", "langwars2", "negotiate"].iter().enumerate() {
        let record: serde_json::Value = serde_json::from_str(&fixture(game)).expect("json");
        let name = format!("replays/{index:06}.json.gz");
        std::fs::write(lw.join(&name), gzip(&fixture(game))).expect("write");
        let bots: Vec<String> = record["players"]
            .as_array()
            .expect("players")
            .iter()
            .map(|p| p["name"].as_str().expect("name").to_string())
            .collect();
        let faults: Vec<Vec<String>> = record["players"]
            .as_array()
            .expect("players")
            .iter()
            .map(|p| {
                p["faults"]
                    .as_array()
                    .map(|f| {
                        f.iter()
                            .map(|f| f["fault"]["kind"].as_str().unwrap_or("?").to_string())
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect();
        let line = serde_json::json!({
            "game": game,
            "variant": null,
            "seed": record["seed"],
            "seats": bots.iter().map(|b| BOTS.iter().position(|x| x == b).expect("bot")).collect::<Vec<_>>(),
            "bots": bots,
            "scores": record["outcome"]["scores"],
            "ranks": record["outcome"]["ranks"],
            "winner": record["outcome"]["winner"],
            "faults": faults,
            "replay": name,
            "pair": index,
        });
        // The runner writes `index` first, and the statistics' reader finds it there.
        let _ = write!(results, "{{\"index\":{index},{}", &line.to_string()[1..]);
        results.push('\n');
    }
    // A game without a replay and a damaged last line (a game being written when the page is read).
    results.push_str(r#"{"index":3,"game":"langwars2","seed":9,"pair":3,"seats":[0,1,2,3],"bots":["greedy","random","random#2","random#3"],"scores":["13/2",1,0,-2],"ranks":[1,2,3,4],"winner":0,"faults":[[],[],[],[]],"replay":null}"#);
    results.push_str("\n{\"index\":4,\"ga");
    std::fs::write(lw.join("results.jsonl"), results).expect("write");
    // A real plan (the statistics need one), plus the `games` total some plans carry.
    let plan = arena_tournament::Plan {
        format: arena_tournament::schedule::PLAN_FORMAT,
        arena: None,
        game: "langwars2".into(),
        variant: None,
        players: 4,
        bots: BOTS
            .iter()
            .map(|name| arena_tournament::BotPlan {
                name: name.to_string(),
                spec: if *name == "slow" {
                    "python3 slowbot.py".into()
                } else {
                    format!("builtin:{}", name.split('#').next().unwrap_or(name))
                },
                workdir: None,
                source: None,
            })
            .collect(),
        schedule: arena_tournament::Schedule::RoundRobin,
        seat_orders: arena_tournament::SeatOrders::Rotations,
        rounds: 1,
        seed: 1,
        settings: arena_tournament::RunSettings {
            rules: arena_core::runner::RunRules::default(),
            stderr_cap: 65536,
            replays: true,
            builtin_replays: false,
            game_options: Default::default(),
            kept_folders: false,
        },
        groups: Vec::new(),
        groups_per_round: 2,
        sprt: None,
    };
    let mut plan = serde_json::to_value(&plan).expect("plan");
    plan["games"] = serde_json::json!(10);
    std::fs::write(lw.join("tournament.json"), plan.to_string()).expect("write");

    std::fs::write(
        lw.join("report.html"),
        "<!doctype html><title>report</title><a href=\"replays/000001.json.gz\">game 1</a>",
    )
    .expect("write");

    let duels = root.join("duels");
    std::fs::create_dir_all(duels.join("replays")).expect("mkdir");
    std::fs::write(duels.join("replays/spring.json"), fixture("spring2021")).expect("write");
    std::fs::write(duels.join("replays/coup.json.gz"), gzip(&fixture("coup"))).expect("write");
    std::fs::write(
        duels.join("results.jsonl"),
        concat!(
            r#"{"index":0,"game":"spring2021","variant":"bronze","seed":7,"seats":[0,1],"bots":["planner","wood1"],"scores":[158,51],"ranks":[1,2],"winner":0,"faults":[[],[]],"replay":"replays/spring.json"}"#,
            "\n",
            r#"{"index":1,"game":"coup","variant":null,"seed":3,"seats":[0,1],"bots":["calculator","bandit"],"scores":[0,1],"ranks":[2,1],"winner":1,"faults":[[],[]],"replay":"replays/coup.json.gz"}"#,
            "\n"
        ),
    )
    .expect("write");
    std::fs::write(root.join("loose.json"), fixture("coup")).expect("write");
}

/// Every game's drawing, as the binary's registry gives them to the viewer.
pub fn games() -> arena_viewer::ViewerGames {
    use arena_game::GameDef;
    fn of<D: GameDef>(def: &D) -> (&'static str, &'static str) {
        (def.id(), def.viewer_script())
    }
    let mut games: Vec<(&'static str, &'static str)> =
        arena_langwars::definitions().iter().map(of).collect();
    games.push(of(&arena_spring2021::definition()));
    games.push(of(&arena_coup::definition()));
    arena_viewer::ViewerGames::new(games)
}
