//! The viewer page: one HTML document with the replay, the script and the style inlined, so the same
//! page works from the server and as a file opened from disk.

use serde_json::Value;

use crate::ViewerError;

/// The games the viewer draws, as the game registry gives them: each game's id (a replay's
/// `game`) and its drawing script (`Arena.register([ids], draw)`, kept in the game's folder). The
/// viewer itself knows no game.
#[derive(Clone, Debug, Default)]
pub struct ViewerGames {
    games: Vec<(&'static str, &'static str)>,
}

impl ViewerGames {
    pub fn new(games: impl IntoIterator<Item = (&'static str, &'static str)>) -> Self {
        ViewerGames {
            games: games.into_iter().collect(),
        }
    }

    fn knows(&self, id: &str) -> bool {
        self.games.iter().any(|(known, _)| *known == id)
    }

    /// The ids, for messages.
    pub fn ids(&self) -> String {
        let ids: Vec<&str> = self.games.iter().map(|(id, _)| *id).collect();
        ids.join(", ")
    }

    /// The scripts, each once (the editions of one family share theirs), in registry order.
    fn scripts(&self) -> Vec<&'static str> {
        let mut scripts: Vec<&'static str> = Vec::new();
        for (_, script) in &self.games {
            if !scripts.contains(script) {
                scripts.push(script);
            }
        }
        scripts
    }

    /// The page's whole script: the viewer's core, every game's drawing, then `last`.
    fn page_script(&self, last: &str) -> String {
        let mut parts = vec![SCRIPT_CORE];
        parts.extend(self.scripts());
        parts.push(last);
        parts.join("\n")
    }
}

const TEMPLATE: &str = include_str!("../assets/viewer.html");
const STYLE: &str = include_str!("../assets/viewer.css");
const SCRIPT_CORE: &str = include_str!("../assets/viewer.js");
const SCRIPT_PUBLISHED: &str = include_str!("../assets/published.js");

/// The page that shows any game of a published tournament folder: `viewer.html` beside
/// `report.html`, opened as `viewer.html?game=NNNNNN`, loads `replays/NNNNNN.js` (see
/// `assets/published.js`; the tournament runner writes those beside the `.json.gz` replays).
pub fn published_viewer_page(games: &ViewerGames) -> String {
    let script = games.page_script(SCRIPT_PUBLISHED);
    fill(
        TEMPLATE,
        &[
            ("{{TITLE}}", "arena replay"),
            ("{{STYLE}}", STYLE),
            (
                "{{NAV}}",
                "<a class=\"back\" href=\"report.html\">← report</a>",
            ),
            ("{{DATA}}", ""),
            ("{{SCRIPT}}", &script),
        ],
    )
}

/// One replay record (the JSON `arena play --replay` writes) → a self-contained viewer page.
pub fn export_html(replay_json: &str, games: &ViewerGames) -> Result<String, ViewerError> {
    viewer_html(replay_json, None, games)
}

/// A link back to where the game was opened from (server pages only).
pub struct Back {
    pub href: String,
    pub label: String,
    /// The `arena play` command that plays the game again (games of a tournament).
    pub command: Option<String>,
}

/// The page of one game, with a link back to where it was opened from on a server's pages: checks
/// the record enough to be sure the page will draw it, then fills the template.
pub fn viewer_html(
    replay_json: &str,
    back: Option<&Back>,
    games: &ViewerGames,
) -> Result<String, ViewerError> {
    let mut record: Value = serde_json::from_str(replay_json)
        .map_err(|e| ViewerError::NotAReplay(format!("invalid JSON: {e}")))?;
    arena_formats::version::check_replay(&record)?;
    let game = record
        .get("game")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| ViewerError::NotAReplay("no `game` field".into()))?;
    if !games.knows(&game) {
        return Err(ViewerError::UnknownGame {
            game,
            known: games.ids(),
        });
    }
    if record.get("players").and_then(Value::as_array).is_none() {
        return Err(ViewerError::NotAReplay("no `players` list".into()));
    }
    let frames = record
        .get("frames")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if frames == 0 {
        return Err(ViewerError::NotAReplay(
            "the record has no frames to show (it was played without recording frames)".into(),
        ));
    }
    if record.get("outcome").and_then(Value::as_object).is_none() {
        return Err(ViewerError::NotAReplay("no `outcome`".into()));
    }
    // Seeds are u64: JavaScript numbers would round them (2^53), so the page gets them as text.
    if let Some(seed) = record.get_mut("seed") {
        exact_text(seed);
    }
    if let Some(players) = record.get_mut("players").and_then(Value::as_array_mut) {
        for player in players {
            if let Some(seed) = player.get_mut("bot_seed") {
                exact_text(seed);
            }
        }
    }
    let players = record
        .get("players")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let names: Vec<&str> = players
        .iter()
        .map(|p| p.get("name").and_then(Value::as_str).unwrap_or("?"))
        .collect();
    let seed = match record.get("seed") {
        Some(Value::String(seed)) => seed.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let title = format!("{game} {seed}: {}", names.join(" vs "));

    // JSON can only hold `<` inside strings, where `\u003c` means the same: no `</script>` can end
    // the data block early, whatever a bot wrote to stderr.
    let data = serde_json::to_string(&record)
        .map_err(|e| ViewerError::NotAReplay(e.to_string()))?
        .replace('<', "\\u003c");
    let nav = match back {
        Some(back) => format!(
            "<a class=\"back\" href=\"{}\">← {}</a>{}",
            escape(&back.href),
            escape(&back.label),
            back.command
                .as_ref()
                .map(|command| format!(
                    " <span class=\"reproduce\">play it again: <code>{}</code></span>",
                    escape(command)
                ))
                .unwrap_or_default()
        ),
        None => String::new(),
    };
    let script = games.page_script("Arena.start();");
    // Placeholders are replaced in one pass over the template so that no inserted text (which may
    // contain anything) is searched for the next placeholder.
    Ok(fill(
        TEMPLATE,
        &[
            ("{{TITLE}}", &escape(&title)),
            ("{{STYLE}}", STYLE),
            ("{{NAV}}", &nav),
            ("{{DATA}}", &data),
            ("{{SCRIPT}}", &script),
        ],
    ))
}

/// A JSON integer as a string with the same digits.
fn exact_text(value: &mut Value) {
    if value.is_u64() || value.is_i64() {
        *value = Value::String(value.to_string());
    }
}

/// Replaces each `{{KEY}}` of `template` by its value, in a single left-to-right pass.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        match values.iter().find(|(key, _)| after.starts_with(key)) {
            Some((key, value)) => {
                out.push_str(value);
                rest = &after[key.len()..];
            }
            None => {
                out.push_str("{{");
                rest = &after[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// HTML text and attribute escaping.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A registry of one game, drawn by a stand-in script.
    fn coup_only() -> ViewerGames {
        ViewerGames::new([("coup", "Arena.register([\"coup\"], () => {});")])
    }

    #[test]
    fn data_cannot_close_the_script() {
        let record =
            r#"{"game":"coup","players":[{"name":"</script><b>x"}],"frames":[{}],"outcome":{}}"#;
        let page = export_html(record, &coup_only()).expect("page");
        assert!(!page.contains("</script><b>"));
        assert!(page.contains("\\u003c/script>"));
    }

    #[test]
    fn refuses_unknown_games_and_empty_records() {
        let unknown = r#"{"game":"chess","players":[],"frames":[{}],"outcome":{}}"#;
        assert!(matches!(
            export_html(unknown, &coup_only()),
            Err(ViewerError::UnknownGame { .. })
        ));
        let empty = r#"{"game":"coup","players":[],"frames":[],"outcome":{}}"#;
        assert!(matches!(
            export_html(empty, &coup_only()),
            Err(ViewerError::NotAReplay(_))
        ));
        assert!(matches!(
            export_html("nope", &coup_only()),
            Err(ViewerError::NotAReplay(_))
        ));
    }

    #[test]
    fn fill_does_not_rescan_values() {
        let out = fill("a{{X}}b{{Y}}c{{", &[("{{X}}", "{{Y}}"), ("{{Y}}", "1")]);
        assert_eq!(out, "a{{Y}}b1c{{");
    }
}
