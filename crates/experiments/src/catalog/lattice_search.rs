//! Thesis sec. 4.6.4, Tables 4.1-4.3: minimum distance `2 rho_X` of 1000, 2000 and 3000 lattice
//! points for d = 10..50 by Algorithm 10 (M = 50 primes), exhaustive Korobov search, SCS (T = 150
//! sweeps from b = (1, ..., 1); the thesis does not give SCS's start) and Algorithm 11 (M = 50,
//! T = 3, SCS from the 64 best Algorithm 10 candidates instead of all of them; see
//! `gradfree_qmc::lattice::search`), next to the printed values. `--quick`: n = 1000, d = 10 and
//! 20, Algorithm 11 from 8 candidates.

use gradfree_qmc::korobov_search;
use gradfree_qmc::lattice::search::{SearchSpec, scs};
use gradfree_qmc::quality::Norm;
use gradfree_qmc::reference::{SEARCH_DIMS, TABLES_4_1_4_3, matches_printed};

use crate::{Ctx, Figure, Report, Result, Series, Table};

/// Runs the experiment of the module documentation.
pub fn run(ctx: &Ctx) -> Result<Report> {
    // The thesis' settings; --quick refines fewer Algorithm 10 candidates.
    let search = if ctx.quick { SearchSpec { top: 8, ..SearchSpec::default() } } else { SearchSpec::default() };
    let mut tables = Vec::new();
    let mut notes = Vec::new();
    let mut exact = [0usize; 4];
    let mut above = [0usize; 4];
    let mut total = 0;
    let mut panels = Vec::new();
    for (ti, t) in TABLES_4_1_4_3.iter().enumerate() {
        if ctx.quick && t.n != 1000 {
            continue;
        }
        let dims: Vec<usize> = SEARCH_DIMS.iter().copied().filter(|&d| !ctx.quick || d <= 20).collect();
        let mut headers = vec!["method".to_string()];
        for d in &dims {
            headers.push(format!("d = {d}"));
            headers.push("thesis".into());
        }
        let hdr: Vec<&str> = headers.iter().map(String::as_str).collect();
        let mut table = Table::new(
            format!("Table 4.{}: minimum distance 2 rho_X of {} lattice points (ours, thesis)", ti + 1, t.n),
            format!("table_4_{}_n{}", ti + 1, t.n),
            &hdr,
        );
        let mut rows: Vec<Vec<String>> = ["Algorithm 10", "Korobov", "SCS", "Algorithm 11"].iter().map(|s| vec![s.to_string()]).collect();
        let mut series: Vec<Series> = ["Algorithm 10", "Korobov", "SCS", "Algorithm 11"]
            .iter()
            .map(|s| Series { label: s.to_string(), points: Vec::new(), errors: Vec::new() })
            .collect();
        for (k, &d) in dims.iter().enumerate() {
            let ours = [
                search.alg10(d, t.n)?.min_distance,
                korobov_search(d, t.n, Norm::L2, &|_, _| {})?.min_distance,
                scs(t.n, &vec![1; d], 150)?.min_distance,
                search.alg11(d, t.n)?.min_distance,
            ];
            let printed = [t.alg10[k], t.korobov[k], t.scs[k], t.alg11[k]];
            for m in 0..4 {
                let same = matches_printed(ours[m], printed[m]);
                exact[m] += usize::from(same);
                above[m] += usize::from(!same && ours[m] > printed[m]);
                rows[m].push(format!("{:.5}", ours[m]));
                series[m].points.push((d as f64, ours[m]));
                rows[m].push(printed[m].to_string());
            }
            total += 1;
        }
        for r in rows {
            table.push(r);
        }
        tables.push(table);
        panels.push((format!("n = {}", t.n), series));
    }
    let figure = Figure::panels("lattice_search.png", panels, "d", "min distance 2 rho_X", false, 3);
    for (m, name) in ["Algorithm 10", "Korobov", "SCS", "Algorithm 11"].iter().enumerate() {
        notes.push(format!("{name}: {} of {total} values equal the printed ones (5 significant digits), {} larger.", exact[m], above[m]));
    }
    notes.push("Korobov search includes multipliers that are not units mod n (Table 4.3, d = 10: the optimum 0.5 is at a = 34).".into());
    Ok(Report { tables, figures: vec![figure], notes })
}
