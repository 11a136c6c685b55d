//! Answer times over a tournament, wall and CPU per bot, and whether its timeouts look like the
//! machine's doing (a loaded machine, or answers that got far less CPU than wall time).

use std::fmt::Write as _;
use std::path::Path;

use arena_core::{ClockKind, FaultKind};

use crate::TournamentError;
use crate::journal;
use crate::schedule::Plan;

// The timing part of `summary.json` is the formats' (arena-formats); its old names stay.
pub use arena_formats::summary::{BotTiming, MachineLoad, Timing as TimingSummary};

/// The 1-minute load average now (Linux), `None` where it cannot be read: what a run samples
/// into its [`MachineLoad`].
pub fn sample_load() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[derive(Default)]
struct Totals {
    answers: u64,
    wall_us: u64,
    max_wall_us: u64,
    cpu_answers: u64,
    cpu_us: u64,
    max_cpu_us: Option<u64>,
    timeouts: u64,
    starved: u64,
    seen: bool,
}

/// Reads the journal's timing of the bots that are `timed` (process bots and built-ins that
/// search; games between rule bots have none, and their journal is not read again).
pub fn summarize(
    dir: &Path,
    plan: &Plan,
    machine: MachineLoad,
    timed: &dyn Fn(&crate::BotPlan) -> bool,
) -> Result<TimingSummary, TournamentError> {
    let mut totals: Vec<Totals> = plan.bots.iter().map(|_| Totals::default()).collect();
    if plan.bots.iter().any(timed) {
        for entry in journal::entries_in_order(dir)? {
            let entry = entry?;
            for (seat, &bot) in entry.seats.iter().enumerate() {
                let Some(total) = totals.get_mut(bot) else {
                    continue;
                };
                let timeouts = entry.faults.get(seat).map_or(0, |faults| {
                    faults.iter().filter(|&&k| k == FaultKind::Timeout).count() as u64
                });
                total.timeouts += timeouts;
                let Some(Some(timing)) = entry.timing.get(seat) else {
                    continue;
                };
                total.seen = true;
                total.answers += u64::from(timing.answers);
                total.wall_us += timing.wall_us;
                total.max_wall_us = total.max_wall_us.max(timing.max_wall_us);
                if let Some(cpu) = timing.cpu_us {
                    total.cpu_answers += u64::from(timing.answers);
                    total.cpu_us += cpu;
                }
                if let Some(max) = timing.max_cpu_us {
                    total.max_cpu_us = Some(total.max_cpu_us.unwrap_or(0).max(max));
                }
                total.starved += u64::from(timing.starved_timeouts);
            }
        }
    }
    let ms = |us: u64| us as f64 / 1000.0;
    let bots: Vec<BotTiming> = plan
        .bots
        .iter()
        .zip(&totals)
        .filter(|(_, total)| total.seen)
        .map(|(bot, t)| BotTiming {
            bot: bot.name.clone(),
            answers: t.answers,
            wall_mean_ms: (t.answers > 0).then(|| ms(t.wall_us) / t.answers as f64),
            wall_max_ms: (t.answers > 0).then(|| ms(t.max_wall_us)),
            cpu_mean_ms: (t.cpu_answers > 0).then(|| ms(t.cpu_us) / t.cpu_answers as f64),
            cpu_max_ms: t.max_cpu_us.map(ms),
            timeouts: t.timeouts,
            starved_timeouts: t.starved,
        })
        .collect();
    let timeouts: u64 = bots.iter().map(|b| b.timeouts).sum();
    let starved: u64 = bots.iter().map(|b| b.starved_timeouts).sum();
    let warning = (timeouts > 0 && (machine.busy() || starved > 0)).then(|| {
        let mut why = Vec::new();
        if let (true, Some(load)) = (machine.busy(), machine.max_load) {
            why.push(format!(
                "the load average reached {load:.1} on {} cores",
                machine.cores
            ));
        }
        if starved > 0 {
            why.push(format!(
                "{starved} of them got less than half their wall time as CPU time (waiting for a \
                 core, unless the bot sleeps or waits on something)"
            ));
        }
        let advice = if plan.settings.rules.clock == ClockKind::Cpu {
            "run fewer games at once (--jobs 1), or on an idle machine"
        } else {
            "run fewer games at once (--jobs 1), or judge answers on CPU time (--clock cpu)"
        };
        format!(
            "{timeouts} timeout{} happened while the machine was busy ({}): they may measure the \
             machine rather than the bots; {advice}",
            if timeouts == 1 { "" } else { "s" },
            why.join("; ")
        )
    });
    Ok(TimingSummary {
        clock: plan.settings.rules.clock,
        bots,
        machine,
        warning,
    })
}

fn cell(value: Option<f64>) -> String {
    value.map_or("-".into(), |v| format!("{v:.1}"))
}

/// The per-bot table as text (empty when no bot is a process).
pub fn text(timing: &TimingSummary) -> String {
    let mut out = String::new();
    if timing.bots.is_empty() {
        return out;
    }
    let width = timing
        .bots
        .iter()
        .map(|b| b.bot.chars().count())
        .max()
        .unwrap_or(3)
        .clamp(3, crate::text::NAME_MAX);
    let _ = writeln!(
        out,
        "answer times, ms (limits judged on the {} clock):",
        timing.clock.name()
    );
    let _ = writeln!(
        out,
        "  {:<width$} {:>8} {:>10} {:>10} {:>10} {:>10} {:>9}",
        "bot", "answers", "wall mean", "wall max", "cpu mean", "cpu max", "timeouts"
    );
    for bot in &timing.bots {
        let _ = writeln!(
            out,
            "  {:<width$} {:>8} {:>10} {:>10} {:>10} {:>10} {:>9}",
            crate::text::truncate(&bot.bot, width),
            bot.answers,
            cell(bot.wall_mean_ms),
            cell(bot.wall_max_ms),
            cell(bot.cpu_mean_ms),
            cell(bot.cpu_max_ms),
            bot.timeouts
        );
    }
    if let Some(warning) = &timing.warning {
        out.push_str(&crate::text::wrapped(&format!("warning: {warning}")));
    }
    out
}

/// The per-bot table as an HTML section (empty when no bot is a process).
pub fn html(timing: &TimingSummary, escape: impl Fn(&str) -> String) -> String {
    let mut html = String::new();
    if timing.bots.is_empty() {
        return html;
    }
    let _ = write!(
        html,
        "<h2>Answer times (ms)</h2><p>Limits judged on the {} clock.</p><table><tr><th>bot</th><th>answers</th><th>wall mean</th><th>wall max</th><th>CPU mean</th><th>CPU max</th><th>timeouts</th></tr>",
        timing.clock.name()
    );
    for bot in &timing.bots {
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&bot.bot),
            bot.answers,
            cell(bot.wall_mean_ms),
            cell(bot.wall_max_ms),
            cell(bot.cpu_mean_ms),
            cell(bot.cpu_max_ms),
            bot.timeouts
        );
    }
    html.push_str("</table>");
    if let Some(warning) = &timing.warning {
        let _ = write!(
            html,
            "<p class=\"warning\"><b>Warning:</b> {}</p>",
            escape(warning)
        );
    }
    html
}
