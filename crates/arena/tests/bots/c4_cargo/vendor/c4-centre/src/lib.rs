/// The open column nearest the centre, of the top row.
pub fn nearest_open(top: &[u8]) -> i32 {
    (0..7)
        .filter(|&column| top[column as usize] == b'.')
        .min_by_key(|&column: &i32| (column - 3).abs())
        .unwrap_or(-1)
}
