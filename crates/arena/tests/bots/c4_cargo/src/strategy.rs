/// The open column nearest the centre.
pub fn centre_most(grid: &[String]) -> i32 {
    let top = grid[0].as_bytes();
    (0..7)
        .filter(|&column| top[column as usize] == b'.')
        .min_by_key(|&column: &i32| (column - 3).abs())
        .unwrap_or(-1)
}
