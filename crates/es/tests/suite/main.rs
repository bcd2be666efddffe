//! The integration tests of gradfree-es, one module per subject, built as one test binary
//! (one link and one instantiation of the library's generic code instead of one per file).

mod all_algorithms;
mod allocation;
mod ars;
mod asebo;
mod bounds;
mod checkpoint_fuzz;
mod cusp_guard;
mod discrete;
mod driver;
mod ingo;
mod mines;
mod nesterov_spokoiny;
mod registry;
mod restarts;
mod sampling;
mod step_control;
mod surrogate;
