//! `interrupt_waits` ends a blocked wait on a bot at once (its own test binary: the interrupt is
//! process-wide and permanent).

use std::time::{Duration, Instant};

use arena_core::process::{BotProcess, Chunk, group_alive, interrupt_waits};

#[test]
fn an_interrupt_ends_a_wait_on_a_silent_bot() {
    let argv = vec!["sleep".to_string(), "60".to_string()];
    let mut bot = BotProcess::spawn(&argv, None, 1024, None).expect("spawns");
    let group = bot.pgid();
    let interrupter = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(50));
        interrupt_waits();
    });
    // Far beyond any interrupt delay: reaching it would mean the interrupt was missed.
    let deadline = Instant::now() + Duration::from_secs(60);
    assert_eq!(bot.next_chunk(deadline), Chunk::Closed);
    assert!(Instant::now() < deadline);
    interrupter.join().expect("interrupter");
    bot.end();
    assert!(!group_alive(group), "the group is gone once ended");
}
