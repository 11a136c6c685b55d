//! The 37-cell board as compile-time tables: cells are bits of a `u64`, everything geometric
//! (neighbours, distances, seed ranges, shadow rays) is precomputed so that the rules are bit operations.

pub const CELLS: usize = 37;
pub const BOARD: u64 = (1 << CELLS) - 1;

/// Cube direction vectors, index = direction number (0 = East, counter-clockwise on screen).
pub const DIRS: [[i32; 3]; 6] = [
    [1, -1, 0],
    [1, 0, -1],
    [0, 1, -1],
    [-1, 1, 0],
    [-1, 0, 1],
    [0, -1, 1],
];

/// Cube coordinates of each index (spiral from the centre, reference §1.2).
pub const COORDS: [[i32; 3]; CELLS] = build_coords();
/// Neighbour in each direction, or -1 off the board.
pub const NEIGH: [[i8; 6]; CELLS] = build_neigh();
/// Point reflection through the centre.
pub const OPPOSITE: [u8; CELLS] = build_opposite();
/// Hex distance.
pub const DIST: [[u8; CELLS]; CELLS] = build_dist();
/// Richness before holes: 3 for rings 0-1, 2 for ring 2, 1 for ring 3.
pub const BASE_RICHNESS: [u8; CELLS] = build_richness();

/// The points a COMPLETE earns above the nutrients on a cell of `richness` (0 for a hole or poor soil).
pub const fn richness_bonus(richness: u8) -> i32 {
    match richness {
        3 => 4,
        2 => 2,
        _ => 0,
    }
}
/// `RANGE[c][s]`: cells at distance 1..=s from c.
pub const RANGE: [[u64; 4]; CELLS] = build_range();
/// `RAY[d][c][s]`: the cells a tree of size s on c shades when the sun points to d.
pub const RAY: [[[u64; 4]; CELLS]; 6] = build_rays();
/// Cells of the outer ring (starting area in Bronze+).
pub const EDGE: u64 = ((1u64 << 37) - 1) & !((1u64 << 19) - 1);

/// The order of the keys of the referee's `HashMap<CubeCoord, Cell>` (reference §1.3), which is the
/// candidate list the hole generator indexes with `nextInt(37)`.
pub const HOLE_ORDER: [u8; CELLS] = [
    1, 6, 8, 16, 21, 32, 19, 34, 35, 36, 11, 12, 13, 24, 29, 0, 2, 5, 9, 15, 22, 31, 7, 17, 18, 20,
    33, 25, 26, 27, 28, 3, 4, 10, 14, 23, 30,
];

/// Seed targets of a source in the referee's `getCoordsInRange` order (x from -N to N, then y), board
/// cells only, the source itself left out (it always holds the source tree).
#[derive(Clone, Copy, Debug)]
pub struct RangeList {
    pub cells: [u8; 36],
    pub len: u8,
}

impl RangeList {
    pub fn as_slice(&self) -> &[u8] {
        &self.cells[..self.len as usize]
    }
}

/// `RANGE_ORDER[c][s]`.
pub static RANGE_ORDER: [[RangeList; 4]; CELLS] = build_range_order();

/// Rank of each cell in the order of its cube coordinates (x, then y). `RANGE_ORDER` lists the
/// targets of every source in this one order (`getCoordsInRange` walks x, then y, from the source),
/// so the `k`-th listed target of a set is its `k`-th cell by rank.
pub const XY_RANK: [u8; CELLS] = build_xy_rank();
/// The cell of each rank.
pub const BY_XY_RANK: [u8; CELLS] = build_by_xy_rank();
/// `XY_NIBBLE[i][v]`: the cells `4i + b` for the bits `b` of `v`, as ranks (see `to_xy_ranks`).
static XY_NIBBLE: [[u64; 16]; 10] = build_xy_nibble();

/// A set of cells as a set of ranks: bit `XY_RANK[c]` for each cell `c` (ten table reads, no branch).
#[inline]
pub fn to_xy_ranks(mask: u64) -> u64 {
    let mut out = 0;
    for (i, table) in XY_NIBBLE.iter().enumerate() {
        out |= table[(mask >> (4 * i)) as usize & 15];
    }
    out
}

const fn build_xy_rank() -> [u8; CELLS] {
    let mut rank = [0u8; CELLS];
    let mut c = 0;
    while c < CELLS {
        let mut before = 0;
        let mut d = 0;
        while d < CELLS {
            let (a, b) = (COORDS[d], COORDS[c]);
            if a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]) {
                before += 1;
            }
            d += 1;
        }
        rank[c] = before;
        c += 1;
    }
    rank
}

const fn build_by_xy_rank() -> [u8; CELLS] {
    let mut out = [0u8; CELLS];
    let mut c = 0;
    while c < CELLS {
        out[XY_RANK[c] as usize] = c as u8;
        c += 1;
    }
    out
}

const fn build_xy_nibble() -> [[u64; 16]; 10] {
    let mut out = [[0u64; 16]; 10];
    let mut i = 0;
    while i < 10 {
        let mut v = 0;
        while v < 16 {
            let mut b = 0;
            while b < 4 {
                let cell = 4 * i + b;
                if v >> b & 1 == 1 && cell < CELLS {
                    out[i][v] |= 1 << XY_RANK[cell];
                }
                b += 1;
            }
            v += 1;
        }
        i += 1;
    }
    out
}

pub const fn ring(index: usize) -> usize {
    if index == 0 {
        0
    } else if index < 7 {
        1
    } else if index < 19 {
        2
    } else {
        3
    }
}

const fn build_coords() -> [[i32; 3]; CELLS] {
    let mut out = [[0i32; 3]; CELLS];
    let mut i = 1;
    while i < CELLS {
        let r = ring(i) as i32;
        let first = 1 + 3 * r * (r - 1);
        let p = i as i32 - first;
        let side = (p / r) as usize;
        let k = p % r;
        let a = DIRS[side];
        let b = DIRS[(side + 2) % 6];
        out[i] = [
            r * a[0] + k * b[0],
            r * a[1] + k * b[1],
            r * a[2] + k * b[2],
        ];
        i += 1;
    }
    out
}

const fn index_of(x: i32, y: i32, z: i32) -> i32 {
    let mut i = 0;
    while i < CELLS {
        let c = COORDS[i];
        if c[0] == x && c[1] == y && c[2] == z {
            return i as i32;
        }
        i += 1;
    }
    -1
}

const fn build_neigh() -> [[i8; 6]; CELLS] {
    let mut out = [[-1i8; 6]; CELLS];
    let mut i = 0;
    while i < CELLS {
        let mut d = 0;
        while d < 6 {
            let c = COORDS[i];
            out[i][d] = index_of(c[0] + DIRS[d][0], c[1] + DIRS[d][1], c[2] + DIRS[d][2]) as i8;
            d += 1;
        }
        i += 1;
    }
    out
}

const fn build_opposite() -> [u8; CELLS] {
    let mut out = [0u8; CELLS];
    let mut i = 0;
    while i < CELLS {
        let c = COORDS[i];
        out[i] = index_of(-c[0], -c[1], -c[2]) as u8;
        i += 1;
    }
    out
}

const fn abs(v: i32) -> i32 {
    if v < 0 { -v } else { v }
}

const fn build_dist() -> [[u8; CELLS]; CELLS] {
    let mut out = [[0u8; CELLS]; CELLS];
    let mut a = 0;
    while a < CELLS {
        let mut b = 0;
        while b < CELLS {
            let (p, q) = (COORDS[a], COORDS[b]);
            out[a][b] = ((abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2])) / 2) as u8;
            b += 1;
        }
        a += 1;
    }
    out
}

const fn build_richness() -> [u8; CELLS] {
    let mut out = [0u8; CELLS];
    let mut i = 0;
    while i < CELLS {
        out[i] = match ring(i) {
            0 | 1 => 3,
            2 => 2,
            _ => 1,
        };
        i += 1;
    }
    out
}

const fn build_range() -> [[u64; 4]; CELLS] {
    let mut out = [[0u64; 4]; CELLS];
    let mut a = 0;
    while a < CELLS {
        let mut s = 1;
        while s < 4 {
            let mut b = 0;
            while b < CELLS {
                let d = DIST[a][b] as usize;
                if d >= 1 && d <= s {
                    out[a][s] |= 1 << b;
                }
                b += 1;
            }
            s += 1;
        }
        a += 1;
    }
    out
}

const fn build_rays() -> [[[u64; 4]; CELLS]; 6] {
    let mut out = [[[0u64; 4]; CELLS]; 6];
    let mut d = 0;
    while d < 6 {
        let mut c = 0;
        while c < CELLS {
            let mut s = 1;
            while s < 4 {
                let mut mask = 0u64;
                let mut i = 1;
                while i <= s as i32 {
                    let p = COORDS[c];
                    let t = index_of(
                        p[0] + DIRS[d][0] * i,
                        p[1] + DIRS[d][1] * i,
                        p[2] + DIRS[d][2] * i,
                    );
                    if t >= 0 {
                        mask |= 1 << t;
                    }
                    i += 1;
                }
                out[d][c][s] = mask;
                s += 1;
            }
            c += 1;
        }
        d += 1;
    }
    out
}

const fn build_range_order() -> [[RangeList; 4]; CELLS] {
    let empty = RangeList {
        cells: [0; 36],
        len: 0,
    };
    let mut out = [[empty; 4]; CELLS];
    let mut c = 0;
    while c < CELLS {
        let mut n = 1;
        while n < 4 {
            let ni = n as i32;
            let mut list = empty;
            let mut x = -ni;
            while x <= ni {
                let lo = if -ni > -x - ni { -ni } else { -x - ni };
                let hi = if ni < -x + ni { ni } else { -x + ni };
                let mut y = lo;
                while y <= hi {
                    let z = -x - y;
                    let p = COORDS[c];
                    let t = index_of(p[0] + x, p[1] + y, p[2] + z);
                    if t >= 0 && t as usize != c {
                        list.cells[list.len as usize] = t as u8;
                        list.len += 1;
                    }
                    y += 1;
                }
                x += 1;
            }
            out[c][n] = list;
            n += 1;
        }
        c += 1;
    }
    out
}

/// Iterates the set bits of a mask, lowest first.
#[inline]
pub fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(i)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbour_table_matches_reference() {
        assert_eq!(NEIGH[0], [1, 2, 3, 4, 5, 6]);
        assert_eq!(NEIGH[7], [19, 20, 8, 1, 18, 36]);
        assert_eq!(NEIGH[22], [-1, -1, -1, 23, 9, 21]);
        assert_eq!(NEIGH[36], [-1, 19, 7, 18, 35, -1]);
        assert_eq!(OPPOSITE[7], 13);
        assert_eq!(OPPOSITE[19], 28);
        assert_eq!(OPPOSITE[0], 0);
    }

    #[test]
    fn ranges_have_expected_sizes() {
        assert_eq!(RANGE[0][3].count_ones(), 36);
        assert_eq!(RANGE[0][1].count_ones(), 6);
        assert_eq!(RANGE[0][2].count_ones(), 18);
        for c in 0..CELLS {
            for s in 1..4 {
                let from_list = RANGE_ORDER[c][s]
                    .as_slice()
                    .iter()
                    .fold(0u64, |m, &t| m | 1 << t);
                assert_eq!(from_list, RANGE[c][s]);
            }
        }
        // Every range list is in rank order, and ranks are a permutation.
        let mut ranks = XY_RANK.to_vec();
        ranks.sort();
        assert_eq!(ranks, (0..37).collect::<Vec<u8>>());
        for c in 0..CELLS {
            assert_eq!(BY_XY_RANK[XY_RANK[c] as usize] as usize, c);
            assert_eq!(to_xy_ranks(1 << c), 1 << XY_RANK[c]);
            for s in 1..4 {
                let list = RANGE_ORDER[c][s].as_slice();
                assert!(
                    list.windows(2)
                        .all(|w| XY_RANK[w[0] as usize] < XY_RANK[w[1] as usize])
                );
                let ranked: Vec<u8> = bits(to_xy_ranks(RANGE[c][s]))
                    .map(|r| BY_XY_RANK[r])
                    .collect();
                assert_eq!(ranked, list);
            }
        }
        assert_eq!(to_xy_ranks(BOARD), BOARD);
        let mut order = HOLE_ORDER;
        order.sort();
        assert_eq!(order.to_vec(), (0..37).collect::<Vec<u8>>());
    }
}
