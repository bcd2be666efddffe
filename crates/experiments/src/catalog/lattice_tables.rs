//! Thesis sec. 5.5.1: Tables 5.1-5.2 (minimum l1 / l2 toroidal distance of SubGroup and Korobov
//! lattices, d = 50, 100, 200, 500, the first ten admissible primes) and the construction-time
//! table (SubGroup vs Korobov search, d = 500 and 1000). Each computed value is shown next to the
//! printed one with a match mark (same to the printed 5 significant digits).
//!
//! Hua's row uses `gradfree_qmc::hua` (Hua–Wang's cyclotomic vector with p the smallest prime
//! >= 2d + 3); the thesis does not specify its variant, and only the d = 500 entries match.

use std::time::Instant;

use gradfree_qmc::quality::{Norm, min_distance};
use gradfree_qmc::reference::{TABLES_5_1_5_2, TIMING_5_5_1, matches_printed};
use gradfree_qmc::{hua, korobov_search, subgroup};

use crate::{Ctx, Figure, Report, Result, Series, Table};

fn mark(ours: f64, printed: f64) -> &'static str {
    if matches_printed(ours, printed) { "=" } else { "≠" }
}

/// Tables 5.1-5.2: minimum toroidal distances of SubGroup and Korobov-searched lattices.
pub fn distances(ctx: &Ctx) -> Result<Report> {
    let blocks: Vec<_> = TABLES_5_1_5_2.iter().filter(|b| !ctx.quick || b.d == 50).collect();
    let headers = ["d", "n", "SubGroup", "thesis", "", "Korobov", "thesis", "", "Hua", "thesis", "", "SubGroup = Korobov"];
    let mut t1 = Table::new("Table 5.1: minimum l1 toroidal distance (ours vs thesis)", "table_5_1_l1", &headers);
    let mut t2 = Table::new("Table 5.2: minimum l2 toroidal distance (ours vs thesis)", "table_5_2_l2", &headers);
    let (mut matched, mut total, mut ties, mut hua_matched) = (0, 0, [0usize; 2], 0);
    let mut panels = Vec::new();
    for b in &blocks {
        let mut series = [Vec::new(), Vec::new()];
        for (k, &n) in b.n.iter().enumerate() {
            let lat = subgroup(b.d, n)?;
            let hua_lat = hua(b.d, n)?;
            for (ti, norm, table) in [(0, Norm::L1, &mut t1), (1, Norm::L2, &mut t2)] {
                let s = min_distance(&lat, norm);
                let kor = korobov_search(b.d, n, norm, &|_, _| {})?.min_distance;
                let (ps, pk, ph) = if ti == 0 {
                    (b.subgroup_l1[k], b.korobov_l1[k], b.hua_l1[k])
                } else {
                    (b.subgroup_l2[k], b.korobov_l2[k], b.hua_l2[k])
                };
                matched += usize::from(matches_printed(s, ps)) + usize::from(matches_printed(kor, pk));
                total += 2;
                let h = min_distance(&hua_lat, norm);
                hua_matched += usize::from(matches_printed(h, ph));
                let tie = (s - kor).abs() <= 1e-9 * kor;
                ties[ti] += usize::from(tie);
                table.push(vec![
                    b.d.to_string(),
                    n.to_string(),
                    format!("{s:.5}"),
                    ps.to_string(),
                    mark(s, ps).into(),
                    format!("{kor:.5}"),
                    pk.to_string(),
                    mark(kor, pk).into(),
                    format!("{h:.5}"),
                    ph.to_string(),
                    mark(h, ph).into(),
                    if tie { "yes" } else { "" }.into(),
                ]);
                if ti == 1 {
                    series[0].push((n as f64, s));
                    series[1].push((n as f64, kor));
                }
            }
        }
        let [s, k] = series;
        panels.push((
            format!("d = {}", b.d),
            vec![
                Series { label: "SubGroup".into(), points: s, errors: Vec::new() },
                Series { label: "Korobov search".into(), points: k, errors: Vec::new() },
            ],
        ));
    }
    let figure = Figure::panels("lattice_distances.png", panels, "n", "min l2 toroidal distance", false, 2);
    let cases = blocks.len() * 10;
    Ok(Report {
        tables: vec![t1, t2],
        figures: vec![figure],
        notes: vec![
            format!("{matched} of {total} computed values equal the thesis' printed ones to 5 significant digits."),
            format!(
                "SubGroup attains the Korobov-search optimum in {} of {cases} cases (l1) and {} of {cases} (l2); the thesis reports 24/40 and 20/40.",
                ties[0], ties[1]
            ),
            format!(
                "Hua: {hua_matched} of {} values equal the printed ones (all 8 matches at d = 500); the thesis does not say which prime or rounding its Hua-Wang lattice used (ours: gradfree_qmc::hua).",
                total / 2
            ),
        ],
    })
}

/// The timing table of sec. 5.5.1: construction times of SubGroup lattices and Korobov searches.
pub fn timing(ctx: &Ctx) -> Result<Report> {
    let mut t = Table::new(
        "Sec. 5.5.1: construction time in seconds, ours vs thesis (Korobov search maximizing l2)",
        "lattice_timing",
        &["d", "n", "SubGroup", "thesis", "Korobov search", "thesis", "our Korobov speed-up over thesis"],
    );
    let mut panels = Vec::new();
    for b in &TIMING_5_5_1 {
        let take = if ctx.quick { 3 } else { 10 };
        let mut series: Vec<Series> = ["SubGroup (ours)", "Korobov search (ours)", "SubGroup (thesis)", "Korobov search (thesis)"]
            .iter()
            .map(|s| Series { label: s.to_string(), points: Vec::new(), errors: Vec::new() })
            .collect();
        for (k, &n) in b.n.iter().enumerate().take(take) {
            let t0 = Instant::now();
            let lat = subgroup(b.d, n)?;
            let s = t0.elapsed().as_secs_f64();
            std::hint::black_box(&lat);
            let t0 = Instant::now();
            let kor = korobov_search(b.d, n, Norm::L2, &|_, _| {})?;
            let ks = t0.elapsed().as_secs_f64();
            std::hint::black_box(&kor);
            for (i, v) in [s, ks, b.subgroup[k], b.korobov[k]].into_iter().enumerate() {
                series[i].points.push((n as f64, v));
            }
            t.push(vec![
                b.d.to_string(),
                n.to_string(),
                format!("{s:.2e}"),
                b.subgroup[k].to_string(),
                format!("{ks:.3}"),
                b.korobov[k].to_string(),
                format!("{:.0}x", b.korobov[k] / ks),
            ]);
        }
        panels.push((format!("d = {}", b.d), series));
    }
    let figure = Figure::panels("lattice_timing.png", panels, "n", "seconds", true, 2);
    Ok(Report {
        tables: vec![t],
        figures: vec![figure],
        notes: vec![format!(
            "Times on this machine ({} threads for the Korobov search); the thesis' hardware is not stated. Our search is exhaustive too: it skips only multipliers equivalent under a -> -a, a -> 1/a, and candidates once a difference shorter than the best is found.",
            rayon::current_num_threads()
        )],
    })
}
