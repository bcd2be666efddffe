//! [`StartSpec`]: how a run of any algorithm starts. Shared by the registry, which builds an
//! algorithm from it, and the restart wrapper, which builds each restart from it.

use serde::{Deserialize, Serialize};

/// How to start an algorithm: initial mean, initial scale, seed and algorithm-specific parameters
/// (as a JSON object whose keys are the fields of the algorithm's `*Params` struct).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartSpec {
    /// Initial mean.
    pub x0: Vec<f64>,
    /// Initial scale of the search distribution (methods with a fixed smoothing ignore it).
    pub sigma0: f64,
    /// Seed of the algorithm's generator.
    pub seed: u64,
    /// Algorithm parameters; unknown keys are an error.
    pub params: serde_json::Map<String, serde_json::Value>,
}

impl StartSpec {
    /// Start at `x0` with scale `sigma0`, `seed` and default parameters.
    pub fn new(x0: Vec<f64>, sigma0: f64, seed: u64) -> Self {
        StartSpec { x0, sigma0, seed, params: serde_json::Map::new() }
    }
}
