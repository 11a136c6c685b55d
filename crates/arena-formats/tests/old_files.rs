//! Files of arena 0.2 still read through the format types (the schemas describe what arena writes
//! now; the readers take what it wrote before), and a newer format is refused with a message that
//! names the arena that wrote it.

use arena_formats::{Entry, Plan, Replay, version};

#[test]
fn a_plan_of_arena_0_2_reads() {
    // No `arena` field, no clock, no game options, a numeric seed.
    let plan: Plan = serde_json::from_str(
        r#"{"format":1,"game":"coup","players":2,
            "bots":[{"name":"a","spec":"builtin:calculator"},{"name":"b","spec":"builtin:lawyer"}],
            "schedule":"round-robin","seat_orders":"rotations","rounds":2,"seed":7,
            "settings":{"pause_idle":true,"time_scale":1.0,"stderr_cap":65536,"replays":false},
            "groups":[[0,1]],"groups_per_round":1}"#,
    )
    .expect("a 0.2 plan reads");
    assert_eq!(plan.arena, None);
    assert_eq!(plan.total_games(), 4);
    assert_eq!(plan.bots[0].builtin(), Some("calculator"));
    assert!(version::check_plan(&serde_json::to_value(&plan).expect("encodes")).is_ok());
}

#[test]
fn a_results_line_of_arena_0_2_reads() {
    // A numeric seed, no score_values, no timing.
    let entry: Entry = serde_json::from_str(
        r#"{"index":3,"game":"langwars2","seed":18,"pair":1,"seats":[0,1,2,3],
            "bots":["a","b","c","d"],"scores":["23/3","1","0","-2"],"ranks":[1,2,3,4],
            "winner":0,"faults":[[],[],["timeout"],[]],"replay":null}"#,
    )
    .expect("a 0.2 line reads");
    assert_eq!(entry.seed, 18);
    assert!(entry.score_values.is_empty() && entry.timing.is_empty());
}

#[test]
fn a_replay_from_before_time_policies_reads() {
    let replay: Replay = serde_json::from_str(
        r#"{"format":1,"game":"connect4","config":null,"seed":"5",
            "players":[{"name":"a","spec":"builtin:greedy","answers":1,"max_answer_us":0,"total_answer_us":0},
                       {"name":"b","spec":"builtin:first","answers":0,"max_answer_us":0,"total_answer_us":0}],
            "steps":[{"player":0,"action":3}],
            "outcome":{"scores":["1","0"],"winner":0,"ranks":[1,2]}}"#,
    )
    .expect("an old replay reads");
    assert_eq!(replay.time_policy, arena_game::TimePolicy::Strict);
    assert_eq!(replay.clock, arena_game::ClockKind::Wall);
}

#[test]
fn a_newer_format_is_refused_naming_its_writer() {
    let plan = serde_json::json!({"format": version::FOLDER_FORMAT + 1, "arena": "9.0.0"});
    let message = version::check_plan(&plan).expect_err("refused").to_string();
    assert!(
        message.contains("written by arena 9.0.0") && message.contains("newer arena"),
        "{message}"
    );
    let replay = serde_json::json!({"format": version::RECORD_FORMAT + 1});
    assert!(version::check_replay(&replay).is_err());
}
