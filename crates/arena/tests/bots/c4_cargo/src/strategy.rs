/// The open column nearest the centre (from the vendored crate).
pub fn centre_most(grid: &[String]) -> i32 {
    c4_centre::nearest_open(grid[0].as_bytes())
}
