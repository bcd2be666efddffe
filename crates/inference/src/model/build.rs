//! [`ModelSpec`]: a model by name with its settings and their defaults, written once; the command
//! line and Python build their models through it.

use serde::{Deserialize, Serialize};

use super::{Family, GaussianMixture, Glm, Model, ReluNet};
use crate::InferenceError;

/// The models, by name.
pub const MODEL_NAMES: [&str; 5] = ["linear", "logistic", "poisson", "mixture", "relu"];

/// A model by name: a GLM of sec. 4.2, the Gaussian mixture or the ReLU network of sec. 7. Fields
/// left out of a JSON document take the defaults below; unknown fields are an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ModelSpec {
    /// `linear`, `logistic`, `poisson`, `mixture` or `relu` (default `logistic`).
    #[schemars(extend("enum" = MODEL_NAMES))]
    pub model: String,
    /// GLMs: add a constant column named `const` in front of the features, as statsmodels'
    /// `add_constant` (default false: like statsmodels, the features are used as given).
    pub intercept: bool,
    /// Mixture: components `p` (default 3, sec. 7's).
    #[schemars(range(min = 1), extend("x-applies" = {"key": "model", "in": ["mixture"]}))]
    pub components: usize,
    /// Mixture: the components' known standard deviation `sigma` (default 1, sec. 7's hard case).
    #[schemars(extend("x-applies" = {"key": "model", "in": ["mixture"]}))]
    pub sigma: f64,
    /// ReLU network: hidden units `k` (default 2).
    #[schemars(range(min = 1), extend("x-applies" = {"key": "model", "in": ["relu"]}))]
    pub hidden: usize,
}

impl Default for ModelSpec {
    fn default() -> Self {
        ModelSpec { model: "logistic".into(), intercept: false, components: 3, sigma: 1.0, hidden: 2 }
    }
}

impl ModelSpec {
    /// The model on data with `d` features per row (before the intercept column is added).
    pub fn build(&self, d: usize) -> Result<Box<dyn Model>, InferenceError> {
        let glm = |family| -> Result<Box<dyn Model>, InferenceError> { Ok(Box::new(Glm::new(family, d + usize::from(self.intercept)))) };
        if self.intercept && !matches!(self.model.as_str(), "linear" | "logistic" | "poisson") {
            return Err(InferenceError::invalid("intercept", true, format!("false for the {} model (only GLMs take one)", self.model)));
        }
        match self.model.as_str() {
            "linear" => glm(Family::Linear),
            "logistic" => glm(Family::Logistic),
            "poisson" => glm(Family::Poisson),
            "mixture" => Ok(Box::new(GaussianMixture::new(self.components, self.sigma)?)),
            "relu" => Ok(Box::new(ReluNet::new(d, self.hidden)?)),
            other => Err(InferenceError::invalid("model", other, MODEL_NAMES.join(", "))),
        }
    }

    /// The parameters' names given the features' names: the features (with `const` first for an
    /// intercept) for GLMs, `mu1..mup` for the mixture, `W1[i,j]` and `W2[i]` for the network.
    pub fn parameter_names(&self, features: &[String]) -> Vec<String> {
        match self.model.as_str() {
            "mixture" => (1..=self.components).map(|i| format!("mu{i}")).collect(),
            "relu" => {
                let d = features.len();
                let mut names: Vec<String> = (0..self.hidden * d).map(|k| format!("W1[{},{}]", k / d, k % d)).collect();
                names.extend((0..self.hidden).map(|i| format!("W2[{i}]")));
                names
            }
            _ => self.intercept.then(|| "const".to_string()).into_iter().chain(features.iter().cloned()).collect(),
        }
    }

    /// `x` (row-major, `d` features) with the constant column in front if the spec asks for it.
    pub fn design(&self, x: Vec<f64>, d: usize) -> Vec<f64> {
        if !self.intercept || d == 0 {
            return x;
        }
        let mut out = Vec::with_capacity(x.len() / d * (d + 1));
        for row in x.chunks_exact(d) {
            out.push(1.0);
            out.extend_from_slice(row);
        }
        out
    }
}

/// A [`gradfree_data::RowSource`] with the constant column of a [`ModelSpec`] added to its rows.
pub struct Designed<'a> {
    /// The source.
    pub source: &'a mut dyn gradfree_data::RowSource,
    /// The model.
    pub spec: &'a ModelSpec,
}

impl gradfree_data::RowSource for Designed<'_> {
    fn dim(&self) -> usize {
        self.source.dim() + usize::from(self.spec.intercept)
    }
    fn names(&self) -> Option<Vec<String>> {
        self.source.names()
    }
    fn next_chunk(&mut self) -> Result<Option<gradfree_data::Chunk>, gradfree_data::DataError> {
        let d = self.source.dim();
        Ok(self.source.next_chunk()?.map(|c| gradfree_data::Chunk { x: self.spec.design(c.x, d), y: c.y }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_are_built_by_name_with_their_parameter_names() {
        let names = vec!["a".to_string(), "b".to_string()];
        let glm = ModelSpec { model: "poisson".into(), intercept: true, ..ModelSpec::default() };
        assert_eq!(glm.build(2).unwrap().dim(), 3);
        assert_eq!(glm.parameter_names(&names), ["const", "a", "b"]);
        assert_eq!(glm.design(vec![5.0, 6.0, 7.0, 8.0], 2), [1.0, 5.0, 6.0, 1.0, 7.0, 8.0]);
        let relu = ModelSpec { model: "relu".into(), hidden: 3, ..ModelSpec::default() };
        assert_eq!(relu.build(2).unwrap().dim(), 9);
        assert_eq!(relu.parameter_names(&names)[8], "W2[2]");
        assert_eq!(ModelSpec { model: "mixture".into(), ..ModelSpec::default() }.parameter_names(&names), ["mu1", "mu2", "mu3"]);
        let e = ModelSpec { model: "probit".into(), ..ModelSpec::default() }.build(2).err().unwrap().to_string();
        assert!(e.contains("`model`") && e.contains("linear, logistic"), "{e}");
        let e = ModelSpec { model: "mixture".into(), intercept: true, ..ModelSpec::default() }.build(1).err().unwrap().to_string();
        assert!(e.contains("`intercept`"), "{e}");
    }
}
