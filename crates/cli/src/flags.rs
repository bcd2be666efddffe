//! How the command line prints library errors: an invalid parameter named by its library field
//! (e.g. `max_evaluations` of `gradfree_core::StopRules`) is shown as the flag that sets it
//! (`invalid --max-evals 3: must be ...`), and policy errors get the flag that changes the policy.
//! Errors are read by their types (a `match` on each crate's variants), never by their text.

use std::error::Error;

use gradfree_core::CoreError;
use gradfree_core::schema::flag_of;

/// The flag that sets a parameter of the shared machinery or of an evolution strategy run (a
/// [`CoreError::InvalidParameter`]), if the command line has one: a stop rule's or a restart
/// setting's own flag ([`gradfree_core::StopSpec::keywords`], [`gradfree_es::RestartSpec::keywords`])
/// or one of the run's other flags (an algorithm's own parameters are `--param KEY=VALUE` and
/// keep their key).
pub fn core_flag(name: &str) -> Option<String> {
    let keywords = gradfree_core::StopSpec::keywords().into_iter().chain(gradfree_es::RestartSpec::keywords());
    if let Some(flag) = flag_of(keywords, name) {
        return Some(flag);
    }
    let flag = match name {
        "checkpoint_every" => "--checkpoint-every",
        "checkpoint_seconds" => "--checkpoint-seconds",
        "sigma0" => "--sigma0",
        "log" => "--log",
        _ => return None,
    };
    Some(flag.to_string())
}

/// The flag of `gradfree bo` that sets a parameter of `gradfree_bo::BoParams` (an invalid
/// parameter reported by the BO crate), if there is one: a keyword's own flag
/// ([`gradfree_bo::keywords::keywords`]), or the command's `--dim`.
pub fn bo_flag(name: &str) -> Option<String> {
    if name == "dim" {
        return Some("--dim".to_string());
    }
    flag_of(gradfree_bo::keywords::keywords(), name)
}

/// The flag of `gradfree infer` that sets a parameter of `gradfree_inference::InferenceSpec` or
/// `ModelSpec` (an invalid parameter reported by the inference crate), if there is one: a
/// keyword's own flag ([`gradfree_inference::keywords`]), or one of the command's other flags.
pub fn infer_flag(name: &str) -> Option<String> {
    if let Some(flag) = flag_of(gradfree_inference::keywords::keywords(), name) {
        return Some(flag);
    }
    let flag = match name {
        "target" => "--target",
        "data" => "--data",
        "checkpoint_every" => "--checkpoint-every",
        "checkpoint_seconds" => "--checkpoint-seconds",
        _ => return None,
    };
    Some(flag.to_string())
}

/// The flag of `gradfree train` that sets a parameter of `gradfree_experiments::train_run::TrainRunSpec`
/// or of the robust-learning crate (an invalid parameter reported by it), if there is one: a
/// keyword's own flag, also under the names the library's checks give parts of it
/// ([`gradfree_experiments::train_run::keywords`]); a NOK block's option is `--block-param`.
pub fn train_flag(name: &str) -> Option<String> {
    if name.starts_with("block ") {
        return Some("--block-param".to_string());
    }
    flag_of(gradfree_experiments::train_run::keywords(), name)
}

/// The flag of `gradfree features` that sets the parameter an invalid-parameter error of the
/// features crate names, if there is one: its keyword's flag ([`gradfree_features::keywords`]),
/// or the command's own `--sigma` and `--gamma` (the Gaussian kernel's bandwidth).
pub fn features_flag(e: &gradfree_features::FeatureError) -> Option<String> {
    let gradfree_features::FeatureError::InvalidParameter { name, .. } = e else { return None };
    match *name {
        "sigma" | "gamma" => Some(format!("--{name}")),
        name => flag_of(gradfree_features::keywords::keywords(), name),
    }
}

/// Which crate's parameters an invalid parameter belongs to (each has its own flags).
#[derive(Clone, Copy, PartialEq)]
enum Origin {
    Run,
    Bo,
    Inference,
    Robust,
}

/// The core error inside one error of a chain, if it is one of the library errors that carry one,
/// and which crate it came from.
fn core_of<'a>(e: &'a (dyn Error + 'static)) -> Option<(&'a CoreError, Origin)> {
    use gradfree_bo::BoError;
    use gradfree_es::EsError;
    use gradfree_experiments::ExperimentError as X;
    use gradfree_inference::InferenceError as I;
    if let Some(c) = e.downcast_ref::<CoreError>() {
        return Some((c, Origin::Run));
    }
    if let Some(I::Core(c)) | Some(I::Data(gradfree_data::DataError::Core(c))) = e.downcast_ref::<I>() {
        return Some((c, Origin::Inference));
    }
    if let Some(gradfree_robust::RobustError::Core(c)) =
        e.downcast_ref::<gradfree_robust::RobustError>().or_else(|| match e.downcast_ref::<X>() {
            Some(X::Robust(r)) => Some(r),
            _ => None,
        })
    {
        return Some((c, Origin::Robust));
    }
    match (e.downcast_ref::<EsError>(), e.downcast_ref::<BoError>(), e.downcast_ref::<X>()) {
        (Some(EsError::Core(c)), _, _) | (_, _, Some(X::Core(c) | X::Es(EsError::Core(c)))) => Some((c, Origin::Run)),
        (_, Some(BoError::Core(c)), _) | (_, _, Some(X::Bo(BoError::Core(c)))) => Some((c, Origin::Bo)),
        (_, _, Some(X::Inference(I::Core(c)))) => Some((c, Origin::Inference)),
        _ => None,
    }
}

/// The message of one error of a chain, as the command line shows it.
fn message(e: &(dyn Error + 'static)) -> String {
    let problem = e.downcast_ref::<gradfree_problems::ProblemError>().or_else(|| match e.downcast_ref() {
        Some(gradfree_experiments::ExperimentError::Problem(p)) => Some(p),
        _ => None,
    });
    if let Some(gradfree_problems::ProblemError::Invalid { name: name @ ("rotate" | "shift"), message }) = problem {
        return format!("invalid --{name}: {message}");
    }
    // A point set's size named by its flag (`invalid --dim 30000`, not `invalid d = 30000`).
    if let Some(gradfree_qmc::QmcError::InvalidParameter { name, value, expected }) = e.downcast_ref() {
        let flag = match *name {
            "d" => Some("--dim"),
            "n" => Some("--n"),
            "replicates" => Some("--replicates"),
            "bits" => Some("--bits"),
            _ => None,
        };
        if let Some(flag) = flag {
            return format!("invalid {flag} {value}: expected {expected}");
        }
    }
    if let Some(io) = e.downcast_ref::<std::io::Error>() {
        return gradfree_core::files::describe_io(io);
    }
    let Some((c, origin)) = core_of(e) else { return e.to_string() };
    let flag_of = |name: &str| match origin {
        Origin::Bo => bo_flag(name).or_else(|| core_flag(name)),
        Origin::Inference => infer_flag(name),
        Origin::Robust => train_flag(name),
        Origin::Run => core_flag(name),
    };
    match c {
        CoreError::TooLarge { what, bytes, limit, param: Some(param) } => {
            let (name, value) = &**param;
            let needs = format!(
                "{what} needs {}, more than the {} of memory available",
                gradfree_core::memory::human_bytes(*bytes),
                gradfree_core::memory::human_bytes(*limit as u128)
            );
            match flag_of(name).as_deref() {
                Some(f @ "--block-param") => format!("invalid {f} {}={value}: {needs}", name.trim_start_matches("block ")),
                Some(f) => format!("invalid {f} {value}: {needs}"),
                None => c.to_string(),
            }
        }
        CoreError::InvalidParameter { name, value, expected } => {
            let flag = flag_of(name);
            match flag.as_deref() {
                // A block setting names its key: `--block-param lambda=-1`.
                Some(f @ "--block-param") => format!("invalid {f} {}={value}: must be {expected}", name.trim_start_matches("block ")),
                Some(f) => format!("invalid {f} {value}: must be {expected}"),
                None => c.to_string(),
            }
        }
        CoreError::NonFinite { .. } => format!("{c}: use --on-nonfinite treat-as-inf"),
        c => c.to_string(),
    }
}

/// The whole chain in one line, each error and its causes joined by `": "` (as `{:#}` prints an
/// `anyhow::Error`), in the command line's spelling.
pub fn render(e: &anyhow::Error) -> String {
    e.chain().map(message).collect::<Vec<_>>().join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_names_become_flags_through_wrappers() {
        let core = CoreError::invalid("max_evaluations", 3, ">= 4");
        let e = anyhow::Error::new(gradfree_experiments::ExperimentError::Es(gradfree_es::EsError::Core(core))).context("optimize");
        assert_eq!(render(&e), "optimize: invalid --max-evals 3: must be >= 4");
        let param = anyhow::Error::new(CoreError::invalid("beta", -1, "> 0"));
        assert_eq!(render(&param), "invalid parameter `beta` = -1: must be > 0");
        let nf = anyhow::Error::new(CoreError::NonFinite { index: 2, value: f64::NAN });
        assert!(render(&nf).ends_with(": use --on-nonfinite treat-as-inf"), "{}", render(&nf));
        let bo = anyhow::Error::new(gradfree_bo::BoError::invalid("batch_size", 0, "an integer in 1..=1000"));
        assert_eq!(render(&bo), "invalid --batch 0: must be an integer in 1..=1000");
        assert_eq!(render(&anyhow::anyhow!("plain")), "plain");
        let inf = anyhow::Error::new(gradfree_experiments::ExperimentError::Inference(gradfree_inference::InferenceError::invalid(
            "batch_size",
            1,
            ">= 2 for masgrad",
        )));
        assert_eq!(render(&inf), "invalid --batch 1: must be >= 2 for masgrad");
        let block = anyhow::Error::new(gradfree_robust::RobustError::invalid("block lambda", -1, "a finite number > 0"));
        assert_eq!(render(&block), "invalid --block-param lambda=-1: must be a finite number > 0");
    }
}
