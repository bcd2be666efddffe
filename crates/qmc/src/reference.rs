//! Numbers printed in the thesis (ch. 5), kept as data so tests and `gradfree reproduce` can
//! compare what this crate computes against them. No algorithm reads them.

/// One row block of thesis Tables 5.1 (l1) and 5.2 (l2): dimension, the ten sizes `n` (the first
/// ten primes with `2d | n - 1`), and the printed minimum toroidal distances per method.
pub struct DistanceBlock {
    /// Dimension.
    pub d: usize,
    /// Lattice sizes.
    pub n: [u64; 10],
    /// Table 5.1, SubGroup row.
    pub subgroup_l1: [f64; 10],
    /// Table 5.1, Hua row.
    pub hua_l1: [f64; 10],
    /// Table 5.1, Korobov row.
    pub korobov_l1: [f64; 10],
    /// Table 5.2, SubGroup row.
    pub subgroup_l2: [f64; 10],
    /// Table 5.2, Hua row.
    pub hua_l2: [f64; 10],
    /// Table 5.2, Korobov row.
    pub korobov_l2: [f64; 10],
}

/// Thesis Tables 5.1 and 5.2.
pub const TABLES_5_1_5_2: [DistanceBlock; 4] = [
    DistanceBlock {
        d: 50,
        n: [101, 401, 601, 701, 1201, 1301, 1601, 1801, 1901, 2801],
        subgroup_l1: [12.624, 11.419, 11.371, 11.354, 11.029, 10.988, 10.541, 10.501, 10.454, 10.748],
        hua_l1: [10.426, 10.421, 9.8120, 10.267, 10.074, 9.3982, 9.5890, 9.5175, 8.9868, 9.2260],
        korobov_l1: [12.624, 11.419, 11.371, 11.354, 11.029, 10.988, 10.665, 10.561, 10.701, 10.748],
        subgroup_l2: [2.0513, 1.9075, 1.9469, 1.9196, 1.8754, 1.8019, 1.8008, 1.8709, 1.7844, 1.7603],
        hua_l2: [1.7862, 1.7512, 1.7293, 1.7049, 1.7326, 1.6295, 1.6659, 1.6040, 1.5629, 1.5990],
        korobov_l2: [2.0513, 1.9075, 1.9469, 1.9196, 1.8754, 1.8390, 1.8356, 1.8709, 1.8171, 1.8327],
    },
    DistanceBlock {
        d: 100,
        n: [401, 601, 1201, 1601, 1801, 2801, 3001, 4001, 4201, 4801],
        subgroup_l1: [24.097, 23.760, 22.887, 23.342, 22.711, 23.324, 22.233, 22.437, 22.573, 21.190],
        hua_l1: [21.050, 21.251, 21.205, 20.675, 19.857, 20.683, 20.700, 19.920, 19.967, 20.574],
        korobov_l1: [24.097, 23.760, 23.167, 23.342, 22.893, 23.324, 22.464, 22.437, 22.573, 22.188],
        subgroup_l2: [2.8342, 2.8143, 2.7077, 2.7645, 2.7514, 2.6497, 2.6337, 2.6410, 2.6195, 2.5678],
        hua_l2: [2.5385, 2.5739, 2.4965, 2.4783, 2.4132, 2.5019, 2.4720, 2.4138, 2.4537, 2.4937],
        korobov_l2: [2.8342, 2.8143, 2.7409, 2.7645, 2.7514, 2.6956, 2.6709, 2.6562, 2.6667, 2.6858],
    },
    DistanceBlock {
        d: 200,
        n: [401, 1201, 1601, 2801, 4001, 4801, 9601, 12401, 14401, 15601],
        subgroup_l1: [50.125, 48.712, 47.500, 47.075, 47.810, 45.957, 45.819, 46.223, 43.982, 45.936],
        hua_l1: [43.062, 43.057, 43.052, 43.055, 43.053, 43.055, 43.053, 42.589, 42.558, 42.312],
        korobov_l1: [50.125, 48.712, 47.660, 47.246, 47.810, 46.686, 46.154, 46.223, 45.949, 45.936],
        subgroup_l2: [4.0876, 3.9717, 3.9791, 3.8425, 3.9276, 3.8035, 3.7822, 3.8687, 3.6952, 3.8370],
        hua_l2: [3.7332, 3.7025, 3.6902, 3.6944, 3.7148, 3.6936, 3.6571, 3.5625, 3.6259, 3.5996],
        korobov_l2: [4.0876, 3.9717, 3.9791, 3.9281, 3.9276, 3.9074, 3.8561, 3.8687, 3.8388, 3.8405],
    },
    DistanceBlock {
        d: 500,
        n: [3001, 4001, 7001, 9001, 13001, 16001, 19001, 21001, 24001, 28001],
        subgroup_l1: [121.90, 121.99, 119.60, 118.63, 120.23, 119.97, 116.41, 120.56, 120.24, 113.96],
        hua_l1: [108.33; 10],
        korobov_l1: [121.90, 121.99, 120.46, 120.16, 120.23, 119.97, 119.41, 120.56, 120.24, 118.86],
        subgroup_l2: [6.3359, 6.3769, 6.3141, 6.2131, 6.2848, 6.2535, 6.0656, 6.2386, 6.2673, 6.1632],
        hua_l2: [5.9216, 5.9216, 5.9215, 5.9215, 5.9216, 5.9216, 5.9215, 5.9215, 5.8853, 5.9038],
        korobov_l2: [6.3359, 6.3769, 6.3146, 6.2960, 6.2848, 6.2549, 6.2611, 6.2386, 6.2673, 6.2422],
    },
];

/// One row block of the construction-time table of thesis sec. 5.5.1 (seconds).
pub struct TimingBlock {
    /// Dimension.
    pub d: usize,
    /// Lattice sizes.
    pub n: [u64; 10],
    /// SubGroup construction time.
    pub subgroup: [f64; 10],
    /// Korobov search time.
    pub korobov: [f64; 10],
}

/// The timing table of thesis sec. 5.5.1.
pub const TIMING_5_5_1: [TimingBlock; 2] = [
    TimingBlock {
        d: 500,
        n: [3001, 4001, 7001, 9001, 13001, 16001, 19001, 21001, 24001, 28001],
        subgroup: [0.0185, 0.0140, 0.0289, 0.043, 0.0386, 0.0320, 0.0431, 0.0548, 0.0562, 0.0593],
        korobov: [34.668, 98.876, 152.86, 310.13, 624.56, 933.54, 1308.9, 1588.5, 2058.5, 2815.9],
    },
    TimingBlock {
        d: 1000,
        n: [4001, 16001, 24001, 28001, 54001, 70001, 76001, 88001, 90001, 96001],
        subgroup: [0.0388, 0.0618, 0.1041, 0.1289, 0.2158, 0.2923, 0.3521, 0.4099, 0.5352, 0.5663],
        korobov: [112.18, 1849.4, 4115.9, 5754.6, 20257.0, 34842.0, 43457.0, 56798.0, 56644.0, 69323.0],
    },
];

/// Whether `ours` equals a printed value `printed` to its 5 significant digits (half a unit in
/// the last printed place).
pub fn matches_printed(ours: f64, printed: f64) -> bool {
    let digits = 5 - 1 - printed.abs().log10().floor() as i32;
    (ours - printed).abs() <= 0.5 * 10f64.powi(-digits) + 1e-12
}

/// One block of thesis Table 5.3 (mutual coherence on the sphere, smaller is better).
pub struct CoherenceBlock {
    /// Dimension.
    pub d: usize,
    /// Numbers of points `N = 2n`.
    pub points: [u64; 10],
    /// SubGroup row.
    pub subgroup: [f64; 10],
    /// Lyu's Riesz-energy construction (ref. \[117\]).
    pub lyu: [f64; 10],
    /// i.i.d. Gaussian: mean over 50 runs.
    pub gaussian_mean: [f64; 10],
    /// i.i.d. Gaussian: standard deviation over 50 runs.
    pub gaussian_std: [f64; 10],
}

/// Thesis Table 5.3 (printed with 4 decimals).
pub const TABLE_5_3: [CoherenceBlock; 5] = [
    CoherenceBlock {
        d: 50,
        points: [202, 302, 502, 802, 1202, 1402, 1502, 2102, 2302, 2402],
        subgroup: [0.1490, 0.2289, 0.1923, 0.2930, 0.2608, 0.3402, 0.3358, 0.3211, 0.4534, 0.3353],
        lyu: [0.2313, 0.2377, 0.2901, 0.2902, 0.3005, 0.3154, 0.3155, 0.3209, 0.3595, 0.3718],
        gaussian_mean: [0.5400, 0.5738, 0.5904, 0.6158, 0.6270, 0.6254, 0.6328, 0.6447, 0.6520, 0.6517],
        gaussian_std: [0.0254, 0.0291, 0.0257, 0.0249, 0.0209, 0.0184, 0.0219, 0.0184, 0.0204, 0.0216],
    },
    CoherenceBlock {
        d: 100,
        points: [202, 302, 502, 802, 1202, 1402, 1502, 2102, 2302, 2402],
        subgroup: [0.1105, 0.1529, 0.1923, 0.1764, 0.2397, 0.2749, 0.2513, 0.2679, 0.4534, 0.3353],
        lyu: [0.1234, 0.1581, 0.1586, 0.1870, 0.2041, 0.2191, 0.1976, 0.2047, 0.2244, 0.2218],
        gaussian_mean: [0.4033, 0.4210, 0.4422, 0.4577, 0.4616, 0.4734, 0.4716, 0.4878, 0.4866, 0.4947],
        gaussian_std: [0.0272, 0.0274, 0.0225, 0.0230, 0.0170, 0.0174, 0.0234, 0.0167, 0.0172, 0.0192],
    },
    CoherenceBlock {
        d: 200,
        points: [202, 802, 1202, 1402, 2402, 2602, 3202, 3602, 3802, 5602],
        subgroup: [0.0100, 0.1251, 0.1835, 0.1966, 0.2365, 0.1553, 0.1910, 0.1914, 0.2529, 0.2457],
        lyu: [0.0100, 0.1108, 0.1223, 0.1262, 0.1417, 0.1444, 0.1505, 0.1648, 0.1624, 0.1679],
        gaussian_mean: [0.2887, 0.3295, 0.3362, 0.3447, 0.3564, 0.3578, 0.3645, 0.3648, 0.3689, 0.3768],
        gaussian_std: [0.0163, 0.0155, 0.0148, 0.0182, 0.0140, 0.0142, 0.0143, 0.0142, 0.0140, 0.0151],
    },
    CoherenceBlock {
        d: 500,
        points: [502, 1502, 4502, 6002, 6502, 8002, 9502, 11002, 14002, 17002],
        subgroup: [0.0040, 0.0723, 0.1051, 0.1209, 0.1107, 0.1168, 0.1199, 0.1425, 0.1587, 0.1273],
        lyu: [0.0040, 0.0650, 0.0946, 0.0934, 0.0930, 0.1004, 0.0980, 0.1022, 0.1077, 0.1110],
        gaussian_mean: [0.2040, 0.2218, 0.2388, 0.2425, 0.2448, 0.2498, 0.2528, 0.2527, 0.2579, 0.2607],
        gaussian_std: [0.0111, 0.0099, 0.0092, 0.0081, 0.0113, 0.0110, 0.0100, 0.0084, 0.0113, 0.0092],
    },
    CoherenceBlock {
        d: 1000,
        points: [6002, 8002, 11002, 14002, 17002, 18002, 21002, 26002, 32002, 38002],
        subgroup: [0.0754, 0.0778, 0.0819, 0.0921, 0.0935, 0.0764, 0.1065, 0.0931, 0.0908, 0.1125],
        lyu: [0.0594, 0.0637, 0.0662, 0.0680, 0.0684, 0.0744, 0.0774, 0.0815, 0.0781, 0.0814],
        gaussian_mean: [0.1736, 0.1764, 0.1797, 0.1828, 0.1846, 0.1840, 0.1869, 0.1888, 0.1909, 0.1920],
        gaussian_std: [0.0067, 0.0059, 0.0060, 0.0062, 0.0052, 0.0057, 0.0052, 0.0055, 0.0067, 0.0056],
    },
];

/// Whether `ours` rounds to `printed` at `decimals` decimal places (half a unit of the last place).
pub fn matches_decimals(ours: f64, printed: f64, decimals: i32) -> bool {
    (ours - printed).abs() <= 0.5 * 10f64.powi(-decimals) + 1e-12
}

/// Thesis Tables 4.1-4.3: minimum distance `2 rho_X` of `n` lattice points for d = 10..50, rows
/// Algorithm 10, Korobov, SCS, Algorithm 11.
pub struct SearchTable {
    /// Number of points.
    pub n: u64,
    /// Algorithm 10 row.
    pub alg10: [f64; 5],
    /// Korobov row.
    pub korobov: [f64; 5],
    /// SCS row.
    pub scs: [f64; 5],
    /// Algorithm 11 row.
    pub alg11: [f64; 5],
}

/// The dimensions of Tables 4.1-4.3.
pub const SEARCH_DIMS: [usize; 5] = [10, 20, 30, 40, 50];

/// Thesis Tables 4.1, 4.2, 4.3 (as printed; 1.4142 is a table entry, not sqrt 2).
#[allow(clippy::approx_constant)]
pub const TABLES_4_1_4_3: [SearchTable; 3] = [
    SearchTable {
        n: 1000,
        alg10: [0.59632, 1.0051, 1.3031, 1.5482, 1.7571],
        korobov: [0.56639, 0.90139, 1.0695, 1.2748, 1.3987],
        scs: [0.60224, 1.0000, 1.2247, 1.4142, 1.5811],
        alg11: [0.62738, 1.0472, 1.3620, 1.6175, 1.8401],
    },
    SearchTable {
        n: 2000,
        alg10: [0.54658, 0.95561, 1.2595, 1.4996, 1.7097],
        korobov: [0.51536, 0.80039, 0.96096, 1.1319, 1.2506],
        scs: [0.57112, 0.98420, 1.2247, 1.4142, 1.5811],
        alg11: [0.58782, 1.0144, 1.3221, 1.5758, 1.8029],
    },
    SearchTable {
        n: 3000,
        alg10: [0.53359, 0.93051, 1.2292, 1.4696, 1.7009],
        korobov: [0.50000, 0.67185, 0.82285, 0.95015, 1.0623],
        scs: [0.52705, 0.74536, 0.91287, 1.0541, 1.1785],
        alg11: [0.56610, 0.98601, 1.2979, 1.5553, 1.7771],
    },
];
