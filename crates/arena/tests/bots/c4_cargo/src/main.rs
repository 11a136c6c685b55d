//! Connect Four test bot as a Cargo crate of two modules.
mod strategy;

use std::io::BufRead;

fn main() {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines().map_while(Result::ok);
    while let Some(_me) = lines.next() {
        let grid: Vec<String> = lines.by_ref().take(6).collect();
        if grid.len() < 6 {
            break;
        }
        println!("{}", strategy::centre_most(&grid));
    }
}
