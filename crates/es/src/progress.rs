//! The bookkeeping every generational strategy of this crate keeps, in one state struct (as
//! argmin's `IterState`): its generator, whether a population is out, the generation count and
//! the events since they were last taken. An algorithm holds it as a flattened field, so its
//! checkpoint keys (`rng`, `pending`, `generation`) are those it always had.

use std::fmt::Display;

use gradfree_core::{CoreError, Event, EventKind, GfRng, NonFinitePolicy, Population, begin_tell, rng_from_seed};
use serde::{Deserialize, Serialize};

use crate::points::Work;

/// Generator, pending flag, generation count and events of one strategy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Progress {
    /// The strategy's generator, seeded once ([`rng_from_seed`]).
    pub rng: GfRng,
    /// True from an `ask` that drew a population until the `tell` that takes its values.
    pub pending: bool,
    /// Generations told.
    pub generation: u64,
    /// Events since [`Progress::take_events`]; not state (a resumed run starts with none).
    #[serde(skip)]
    events: Work<Vec<Event>>,
}

impl Progress {
    /// Generation 0, nothing pending, the generator of `seed`.
    pub fn new(seed: u64) -> Self {
        Progress { rng: rng_from_seed(seed), pending: false, generation: 0, events: Work::default() }
    }

    /// The start of `ask`: draws a new population with `draw` unless one is pending (so asking
    /// twice returns the same points), and marks it pending.
    pub fn draw_once(&mut self, draw: impl FnOnce(&mut GfRng)) {
        if !self.pending {
            draw(&mut self.rng);
            self.pending = true;
        }
    }

    /// The start of `tell`: [`begin_tell`] (a pending population of shape `expected`, values
    /// checked under `policy` into `out`), then one more generation. On error nothing changes.
    pub fn begin_tell(
        &mut self,
        population: &Population,
        values: &[f64],
        expected: (usize, usize),
        policy: NonFinitePolicy,
        out: &mut Vec<f64>,
    ) -> Result<(), CoreError> {
        begin_tell(&mut self.pending, population, values, expected, policy, out)?;
        self.generation = self.generation.saturating_add(1);
        Ok(())
    }

    /// Records an event of the current generation: `"generation {g}: {what}"`.
    pub fn event(&mut self, kind: EventKind, what: impl Display) {
        let message = format!("generation {}: {what}", self.generation);
        self.events.0.push(Event { kind, message });
    }

    /// The events since the last call ([`gradfree_core::AskTell::take_events`]).
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flattened into a strategy, the bookkeeping writes and reads the keys it always had, and
    /// the events are not state.
    #[test]
    fn flattened_keys_are_the_old_ones() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Strategy {
            mu: Vec<f64>,
            #[serde(flatten)]
            progress: Progress,
        }
        let mut s = Strategy { mu: vec![1.5, -2.0], progress: Progress::new(7) };
        s.progress.draw_once(|rng| {
            rand::RngExt::random::<f64>(rng);
        });
        s.progress.event(EventKind::NoUpdate, "all values equal");
        let json = serde_json::to_value(&s).unwrap();
        let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["generation", "mu", "pending", "rng"]);
        let back: Strategy = serde_json::from_value(json).unwrap();
        assert_eq!(back, s);
        assert!(back.progress.events.0.is_empty());
        assert_eq!(s.progress.take_events()[0].message, "generation 0: all values equal");
    }

    /// Asking twice draws once; telling counts a generation only when the tell is accepted.
    #[test]
    fn draws_once_and_counts_accepted_tells() {
        let mut p = Progress::new(1);
        let mut draws = 0;
        p.draw_once(|_| draws += 1);
        p.draw_once(|_| draws += 1);
        assert_eq!(draws, 1);
        let pop = Population::zeros(2, 1);
        let mut out = Vec::new();
        assert!(p.begin_tell(&pop, &[1.0], (1, 2), NonFinitePolicy::Error, &mut out).is_err());
        assert_eq!((p.generation, p.pending), (0, true));
        p.begin_tell(&pop, &[1.0, 2.0], (1, 2), NonFinitePolicy::Error, &mut out).unwrap();
        assert_eq!((p.generation, p.pending), (1, false));
        assert!(p.begin_tell(&pop, &[1.0, 2.0], (1, 2), NonFinitePolicy::Error, &mut out).is_err());
    }
}
