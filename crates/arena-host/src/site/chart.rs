//! A rating history as an SVG chart drawn on the server: the rating (μ) after each rated game and
//! its 95 % band (μ ± 2σ). Presentation attributes only (no `style`): the pages' policy allows no
//! inline style.

use maud::{Markup, html};

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 200.0;
const PAD: f64 = 34.0;

/// The chart of `points` (μ, σ), oldest first; a line of text when there is nothing to draw.
pub fn rating_chart(points: &[(f64, f64)]) -> Markup {
    if points.len() < 2 {
        return html! { p.muted { "The rating history shows once rated games are played." } };
    }
    let low = points
        .iter()
        .map(|(mu, sigma)| mu - 2.0 * sigma)
        .fold(f64::INFINITY, f64::min);
    let high = points
        .iter()
        .map(|(mu, sigma)| mu + 2.0 * sigma)
        .fold(f64::NEG_INFINITY, f64::max);
    let span = (high - low).max(1e-9);
    let last = (points.len() - 1) as f64;
    let x = |i: usize| PAD + (WIDTH - 2.0 * PAD) * i as f64 / last;
    let y = |v: f64| HEIGHT - PAD - (HEIGHT - 2.0 * PAD) * (v - low) / span;
    let line: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, (mu, _))| format!("{:.1},{:.1}", x(i), y(*mu)))
        .collect();
    let mut band: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, (mu, sigma))| format!("{:.1},{:.1}", x(i), y(mu + 2.0 * sigma)))
        .collect();
    band.extend(
        points
            .iter()
            .enumerate()
            .rev()
            .map(|(i, (mu, sigma))| format!("{:.1},{:.1}", x(i), y(mu - 2.0 * sigma))),
    );
    let (mu, sigma) = points[points.len() - 1];
    html! {
        figure.chart {
            svg viewBox={ "0 0 " (WIDTH) " " (HEIGHT) } role="img"
                aria-label={ "Rating over " (points.len()) " rated games, now " (format!("{mu:.2}")) } {
                polygon points=(band.join(" ")) fill="#7aa7e0" fill-opacity="0.25" stroke="none" {}
                polyline points=(line.join(" ")) fill="none" stroke="#1f5fb4" stroke-width="2" {}
                line x1=(PAD) y1=(HEIGHT - PAD) x2=(WIDTH - PAD) y2=(HEIGHT - PAD) stroke="#999" {}
                text x=(PAD) y=(HEIGHT - 10.0) font-size="12" fill="#555" { "game 1" }
                text x=(WIDTH - PAD) y=(HEIGHT - 10.0) font-size="12" fill="#555" text-anchor="end" {
                    "game " (points.len())
                }
                text x="4" y=(y(high) + 4.0) font-size="12" fill="#555" { (format!("{high:.1}")) }
                text x="4" y=(y(low) + 4.0) font-size="12" fill="#555" { (format!("{low:.1}")) }
            }
            figcaption {
                "Rating after each rated game, with its 95 % band (μ ± 2σ). Now "
                (format!("{mu:.2} ± {:.2}", 2.0 * sigma)) "."
            }
        }
    }
}
