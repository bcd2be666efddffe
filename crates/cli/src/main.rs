//! `gradfree`: gradient-free optimization and integration from the command line.

/// `println!` that returns an error instead of panicking when standard output is closed or full
/// (`gradfree ... | head`, `> /dev/full`); for functions returning `anyhow::Result`.
macro_rules! outln {
    ($($arg:tt)*) => {
        crate::stdout_line(format_args!($($arg)*))?
    };
}

mod bo;
mod cli;
mod features;
mod flags;
mod infer;
mod integrate;
mod lattice;
mod list;
mod optimize;
mod plot;
mod plot_cmd;
mod points_io;
mod reproduce;
mod sample;
mod train;

use std::process::ExitCode;

use clap::Parser;

/// Error of a write to standard output (see [`outln!`]).
#[derive(Debug, thiserror::Error)]
#[error("writing to standard output: {0}")]
struct StdoutError(std::io::Error);

/// Writes one line to standard output.
fn stdout_line(args: std::fmt::Arguments<'_>) -> Result<(), StdoutError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_fmt(args).and_then(|()| out.write_all(b"\n")).map_err(StdoutError)
}

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let result = match args.command {
        cli::Command::List(a) => list::run(&a),
        cli::Command::Optimize(a) => optimize::run(&a),
        cli::Command::Params(a) => list::params(&a),
        cli::Command::Plot(a) => plot_cmd::run(&a),
        cli::Command::Reproduce(a) => reproduce::run(&a),
        cli::Command::Lattice(a) => lattice::run(&a),
        cli::Command::Sample(a) => sample::run(&a),
        cli::Command::Integrate(a) => integrate::run(&a),
        cli::Command::Features(a) => features::run(&a),
        cli::Command::Bo(a) => bo::run(&a),
        cli::Command::Infer(a) => infer::run(&a),
        cli::Command::Train(a) => train::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`| head`) is not an error of ours: stop quietly, as Unix tools do.
        Err(e) if e.downcast_ref::<StdoutError>().is_some_and(|s| s.0.kind() == std::io::ErrorKind::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: the error and its causes, joined by ": ", parameters named by their flags.
            eprintln!("error: {}", flags::render(&e));
            ExitCode::from(2)
        }
    }
}
