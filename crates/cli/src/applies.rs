//! Flags that do not apply to the run the other flags choose are refused, not ignored: `sample
//! --method mc --scramble owen` would otherwise print i.i.d. points as if scrambled. A flag counts
//! as given when it is on the command line (clap's [`ValueSource::CommandLine`]), so a default is
//! never refused. One rule per flag and command, each naming the choice the flag needs. A seed is
//! accepted by a deterministic point set (`--scramble none`), as scipy's `qmc.Sobol(scramble=False,
//! seed=...)` accepts it, so a sweep over seeds can include the unrandomized set.

use clap::ArgMatches;
use clap::parser::ValueSource;

use crate::args::Command;
use crate::lattice::LatticeMethod;
use crate::sample::SampleMethod;

/// The first flag of `command` that was given but does not apply, as the error line.
pub fn check(command: &Command, m: &ArgMatches) -> Result<(), String> {
    if let Command::Infer(a) = command {
        infer_keyword(a, m)?;
    }
    let rules = rules(command);
    for (id, applies, needs) in rules {
        if !applies && given(m, id) {
            return Err(refusal(m, id, needs));
        }
    }
    Ok(())
}

/// The first keyword of the inference spec given on the command line that its rule refuses for
/// the run's method and model ([`gradfree_inference::keywords`]). A resumed run's method is the
/// checkpoint's, so nothing is judged here then (its flags conflict with `--resume`).
fn infer_keyword(a: &crate::infer::InferArgs, m: &ArgMatches) -> Result<(), String> {
    let Ok(method) = gradfree_inference::Method::parse(crate::infer::method_name(a)) else { return Ok(()) };
    if a.files.resume.is_some() {
        return Ok(());
    }
    let keywords = gradfree_inference::keywords::keywords();
    let id = |k: &gradfree_core::schema::Keyword| k.cli.replace('-', "_");
    match gradfree_inference::keywords::refused(&keywords, &a.model, method, |k| given(m, &id(k))) {
        Some((k, rule)) => Err(refusal(m, &id(k), &rule.needs(gradfree_core::schema::Style::Cli))),
        None => Ok(()),
    }
}

/// Whether the flag with clap id `id` was written on the command line.
fn given(m: &ArgMatches, id: &str) -> bool {
    m.try_get_raw(id).ok().flatten().is_some() && m.value_source(id) == Some(ValueSource::CommandLine)
}

/// `invalid --flag VALUE: only with NEEDS (it would be ignored)`.
fn refusal(m: &ArgMatches, id: &str, needs: &str) -> String {
    let value = m
        .get_raw(id)
        .map(|v| v.map(|s| s.to_string_lossy().into_owned()).collect::<Vec<_>>().join(","))
        .filter(|v| !v.is_empty() && v != "true")
        .map(|v| format!(" {v}"))
        .unwrap_or_default();
    format!("invalid --{}{value}: only with {needs} (it would be ignored)", id.replace('_', "-"))
}

/// `(clap id, whether it applies to this run, what it needs)` for each flag that only some runs use.
fn rules(command: &Command) -> Vec<(&'static str, bool, &'static str)> {
    match command {
        Command::Sample(a) => {
            use SampleMethod as M;
            let sequence = matches!(a.method, M::Sobol | M::Halton);
            let lattice = matches!(a.method, M::Subgroup | M::Korobov);
            vec![
                ("scramble", sequence, "--method sobol or halton"),
                ("bits", a.method == M::Sobol, "--method sobol"),
                ("skip", sequence, "--method sobol or halton (a sequence)"),
                ("a", a.method == M::Korobov, "--method korobov"),
                ("random_shift", lattice, "--method subgroup or korobov"),
            ]
        }
        Command::Lattice(a) => {
            use LatticeMethod as M;
            vec![
                ("metric", a.method == M::Korobov, "--method korobov (Algorithms 10 and 11 maximize the l2 distance)"),
                ("primes", matches!(a.method, M::Alg10 | M::Alg11), "--method alg10 or alg11"),
                ("sweeps", a.method == M::Alg11, "--method alg11"),
                ("top", a.method == M::Alg11, "--method alg11"),
            ]
        }
        Command::Features(a) => {
            let gaussian = matches!(a.kernel.as_str(), "gaussian" | "rbf");
            let ssf = a.method == "ssf";
            vec![
                ("sigma", gaussian, "--kernel gaussian"),
                ("gamma", gaussian, "--kernel gaussian"),
                ("radial_points", gaussian && ssf, "--method ssf and --kernel gaussian"),
                ("frequencies", ssf, "--method ssf"),
                ("rotation", ssf, "--method ssf"),
                ("report_rows", a.report, "--report"),
            ]
        }
        Command::Bo(a) => {
            let m = a.method.as_str();
            vec![
                ("weight", matches!(m, "bkop" | "ucb"), "--method bkop or ucb"),
                ("beta", matches!(m, "gp-bucb" | "gp-ucb-pe"), "--method gp-bucb or gp-ucb-pe"),
                ("n_initial", m != "bull", "a method other than bull (its design is the budget minus one)"),
            ]
        }
        Command::Train(a) => {
            let l = a.loss.as_str();
            vec![
                ("burn_in", matches!(l, "npcl" | "cl"), "--loss npcl or cl"),
                ("noise_rate", matches!(l, "npcl" | "coteaching"), "--loss npcl or coteaching"),
            ]
        }
        Command::Infer(a) => {
            // The spec's keywords are judged by their own rules (`infer_keyword`); these are the
            // command line's own flags.
            let checkpointed = a.files.checkpoint_path().is_some();
            let chains = crate::infer::method_name(a) != "mle" || a.files.resume.is_some();
            let needs = "a chain method (--method other than mle; mle runs no chains)";
            vec![
                ("chains_out", chains, needs),
                ("checkpoint", chains, needs),
                ("checkpoint_every", checkpointed, "--checkpoint FILE"),
                ("checkpoint_seconds", checkpointed, "--checkpoint FILE"),
            ]
        }
        Command::Optimize(a) => vec![
            ("restart_from", a.restarts.is_some(), "--restarts"),
            ("settle_runs", a.restarts.is_some() || a.algo.is_none(), "--restarts (or the recommended method, without --algo)"),
            ("worse_runs", a.restarts.is_some() || a.algo.is_none(), "--restarts (or the recommended method, without --algo)"),
            ("checkpoint_every", a.files.checkpoint_path().is_some(), "--checkpoint FILE"),
            ("checkpoint_seconds", a.files.checkpoint_path().is_some(), "--checkpoint FILE"),
        ],
        Command::Integrate(_) | Command::List(_) | Command::Params(_) | Command::Plot(_) | Command::Reproduce(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use clap::FromArgMatches;

    use crate::args::Cli;

    fn check(args: &[&str]) -> Result<(), String> {
        let m = crate::command().try_get_matches_from(std::iter::once("gradfree").chain(args.iter().copied())).expect("parses");
        let cli = Cli::from_arg_matches(&m).expect("parses");
        super::check(&cli.command, m.subcommand().expect("a command").1)
    }

    /// Every rule refuses its flag where it would be ignored and lets it through where it applies;
    /// a default value is never refused.
    #[test]
    fn flags_that_do_not_apply_are_refused() {
        let refused = [
            (&["sample", "--method", "mc", "--dim", "2", "--n", "8", "--scramble", "owen"][..], "--scramble owen"),
            (&["sample", "--method", "lhs", "--dim", "2", "--n", "8", "--bits", "64"][..], "--bits 64"),
            (&["sample", "--method", "subgroup", "--dim", "2", "--n", "5", "--a", "3"][..], "--a 3"),
            (&["sample", "--method", "sobol", "--dim", "2", "--n", "8", "--random-shift"][..], "--random-shift:"),
            (&["lattice", "--method", "korobov", "--dim", "2", "--n", "5", "--primes", "7"][..], "--primes 7"),
            (&["lattice", "--method", "alg10", "--dim", "2", "--n", "5", "--sweeps", "9"][..], "--sweeps 9"),
            (&["features", "--data", "x.csv", "--dim-out", "4", "--kernel", "arccos1", "--radial-points", "4"][..], "--radial-points 4"),
            (&["features", "--data", "x.csv", "--dim-out", "4", "--method", "iid", "--rotation", "haar"][..], "--rotation haar"),
            (&["features", "--data", "x.csv", "--dim-out", "4", "--kernel", "arccos0", "--sigma", "3"][..], "--sigma 3"),
            (&["features", "--data", "x.csv", "--dim-out", "4", "--report-rows", "5"][..], "--report-rows 5"),
            (&["bo", "--problem", "ackley", "--method", "bkop", "--beta", "3"][..], "--beta 3"),
            (&["bo", "--problem", "ackley", "--method", "ei", "--weight", "5"][..], "--weight 5"),
            (&["bo", "--problem", "ackley", "--method", "bull", "--n-initial", "5"][..], "--n-initial 5"),
            (&["train", "--loss", "ce", "--burn-in", "3"][..], "--burn-in 3"),
            (&["train", "--loss", "gce", "--noise-rate", "0.3"][..], "--noise-rate 0.3"),
            (&["optimize", "--problem", "sphere", "--dim", "2", "--restart-from", "uniform"][..], "--restart-from uniform"),
            (&["optimize", "--problem", "sphere", "--dim", "2", "--checkpoint-every", "5"][..], "--checkpoint-every 5"),
        ];
        for (args, flag) in refused {
            let e = check(args).expect_err(&args.join(" "));
            assert!(e.starts_with(&format!("invalid {flag}")) && e.contains("only with"), "{e}");
        }
        let accepted: [&[&str]; 7] = [
            &["sample", "--method", "halton", "--dim", "2", "--n", "8", "--scramble", "none", "--skip", "3"],
            &["sample", "--method", "korobov", "--dim", "2", "--n", "5", "--a", "2", "--random-shift", "--seed", "4"],
            &["sample", "--method", "mc", "--dim", "2", "--n", "8", "--seed", "4"],
            &["lattice", "--method", "alg11", "--dim", "2", "--n", "5", "--primes", "7", "--sweeps", "2", "--top", "3"],
            &["features", "--data", "x.csv", "--dim-out", "4", "--radial-points", "2", "--report", "--report-rows", "5"],
            &["bo", "--problem", "ackley", "--method", "gp-bucb", "--beta", "3"],
            &["optimize", "--problem", "sphere", "--dim", "2", "--restarts", "ipop", "--restart-from", "uniform"],
        ];
        for args in accepted {
            check(args).unwrap_or_else(|e| panic!("{}: {e}", args.join(" ")));
        }
    }

    /// `gradfree infer`'s flags are the inference spec's keywords: each keyword has its flag,
    /// under its command-line name, with the keyword's default where the flag shows one, and the
    /// rules refuse each rule's keyword where the library would ignore it.
    #[test]
    fn infer_flags_are_the_specs_keywords() {
        let command = crate::command();
        let infer = command.find_subcommand("infer").expect("infer");
        for k in gradfree_inference::keywords::keywords() {
            shows_the_default(flag_of(infer, &k), &k);
        }
        let base = ["infer", "--data", "x.csv"];
        for (extra, refused) in [
            (&["--method", "sgd", "--cov-type", "HC0"][..], Some("--cov-type HC0: only with --method mle")),
            (&["--method", "random-scaling", "--interval", "normal"][..], Some("--interval normal: only with a chain method with bands")),
            (&["--method", "sgd", "--interval", "normal"][..], None),
            (&["--batch", "5"][..], Some("--batch 5: only with a chain method (--method other than mle; mle runs no chains)")),
            (&["--model", "mixture", "--batch", "5"][..], None),
            (&["--model", "relu", "--hidden", "3"][..], None),
            (&["--model", "mixture", "--hidden", "3"][..], Some("--hidden 3: only with --model relu")),
        ] {
            let args: Vec<&str> = base.iter().chain(extra).copied().collect();
            match (check(&args), refused) {
                (Ok(()), None) => {}
                (Err(e), Some(r)) => assert!(e.starts_with(&format!("invalid {r}")), "{e}"),
                (got, want) => panic!("{}: {got:?}, wanted {want:?}", args.join(" ")),
            }
        }
    }

    /// `gradfree optimize` has a flag for every stop rule and every restart setting, under its
    /// command-line name (`gradfree_core::StopSpec::keywords`, `gradfree_es::RestartSpec::keywords`),
    /// which its errors use.
    #[test]
    fn optimize_has_every_stop_rule_and_restart_setting() {
        let command = crate::command();
        let optimize = command.find_subcommand("optimize").expect("optimize");
        for k in gradfree_core::StopSpec::keywords() {
            assert!(optimize.get_arguments().any(|a| a.get_long() == Some(k.cli.as_str())), "no --{}", k.cli);
        }
        for k in gradfree_es::RestartSpec::keywords() {
            assert!(optimize.get_arguments().any(|a| a.get_long() == Some(k.cli.as_str())), "no --{} for {}", k.cli, k.name);
        }
        assert_eq!(crate::flags::core_flag("popsize_factor").as_deref(), Some("--incpopsize"));
        assert_eq!(crate::flags::core_flag("max_evaluations").as_deref(), Some("--max-evals"));
        assert_eq!(crate::flags::core_flag("tol_f_window").as_deref(), Some("--tol-f-window"));
    }

    /// The flag of keyword `k` in `command`.
    fn flag_of<'a>(command: &'a clap::Command, k: &gradfree_core::schema::Keyword) -> &'a clap::Arg {
        command.get_arguments().find(|a| a.get_long() == Some(k.cli.as_str())).unwrap_or_else(|| panic!("no --{} for {}", k.cli, k.name))
    }

    /// A flag that shows a default shows the keyword's (a number or a name).
    fn shows_the_default(arg: &clap::Arg, k: &gradfree_core::schema::Keyword) {
        let shown: Vec<String> = arg.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
        match (&k.default, shown.as_slice()) {
            (Some(serde_json::Value::Number(n)), [s]) => assert_eq!(s.parse::<f64>().ok(), n.as_f64(), "--{}", k.cli),
            (Some(serde_json::Value::String(d)), [s]) => assert_eq!(s, d, "--{}", k.cli),
            _ => {}
        }
    }

    /// `gradfree bo` has a flag for every keyword of a BO run that declares one
    /// ([`gradfree_bo::keywords::keywords`]), with the keyword's default where the flag shows one;
    /// those without a flag are not flags; errors name the flag.
    #[test]
    fn bo_flags_are_the_specs_keywords() {
        let command = crate::command();
        let bo = command.find_subcommand("bo").expect("bo");
        for k in gradfree_bo::keywords::keywords() {
            if k.cli.is_empty() {
                let long = k.name.replace('_', "-");
                assert!(bo.get_arguments().all(|a| a.get_long() != Some(long.as_str())), "--{long} declared flagless");
                assert_eq!(crate::flags::bo_flag(&k.name), None);
                continue;
            }
            let arg = flag_of(bo, &k);
            assert_eq!(crate::flags::bo_flag(&k.name), Some(format!("--{}", k.cli)));
            shows_the_default(arg, &k);
        }
    }

    /// `gradfree train` has a flag for every keyword of a training run
    /// ([`gradfree_experiments::train_run::keywords`]), with the keyword's default where the flag
    /// shows one; errors name the flag, also under the names the library's checks use.
    #[test]
    fn train_flags_are_the_specs_keywords() {
        let command = crate::command();
        let train = command.find_subcommand("train").expect("train");
        for k in gradfree_experiments::train_run::keywords() {
            let arg = flag_of(train, &k);
            assert_eq!(crate::flags::train_flag(&k.name), Some(format!("--{}", k.cli)));
            for alias in &k.aliases {
                assert_eq!(crate::flags::train_flag(alias), Some(format!("--{}", k.cli)), "{alias}");
            }
            shows_the_default(arg, &k);
        }
        assert_eq!(crate::flags::train_flag("block width").as_deref(), Some("--block-param"));
    }

    /// `gradfree features` has a flag for every keyword of a feature map
    /// ([`gradfree_features::keywords`]); errors name the flag, also for a keyword's part.
    #[test]
    fn features_flags_are_the_specs_keywords() {
        use gradfree_features::FeatureError;
        let command = crate::command();
        let features = command.find_subcommand("features").expect("features");
        for k in gradfree_features::keywords::keywords() {
            flag_of(features, &k);
        }
        let flag = |name: &'static str| crate::flags::features_flag(&FeatureError::invalid(name, 0, "x"));
        assert_eq!(flag("n_components").as_deref(), Some("--dim-out"));
        assert_eq!(flag("order").as_deref(), Some("--kernel"));
        assert_eq!(flag("sigma").as_deref(), Some("--sigma"));
        assert_eq!(flag("radial_points").as_deref(), Some("--radial-points"));
    }

    /// Negative numbers are values of the flag before them, so a wrong sign is named by its flag.
    #[test]
    fn negative_numbers_are_values() {
        let e =
            crate::command().try_get_matches_from(["gradfree", "optimize", "--problem", "sphere", "--dim", "-1"]).unwrap_err().to_string();
        assert!(e.contains("'-1' for '--dim"), "{e}");
        let m = crate::command().try_get_matches_from(["gradfree", "integrate", "--dim", "2", "--n", "7", "--b", "-50"]).expect("parses");
        assert_eq!(m.subcommand().unwrap().1.get_one::<f64>("b"), Some(&-50.0));
    }
}
