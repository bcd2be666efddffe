//! `gradfree`: gradient-free optimization and integration from the command line.

mod cli;
mod integrate;
mod lattice;
mod list;
mod optimize;
mod plot;
mod plot_cmd;
mod points_io;
mod progress;
mod reproduce;
mod sample;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let result = match args.command {
        cli::Command::List(a) => list::run(&a),
        cli::Command::Optimize(a) => optimize::run(&a),
        cli::Command::Plot(a) => plot_cmd::run(&a),
        cli::Command::Reproduce(a) => reproduce::run(&a),
        cli::Command::Lattice(a) => lattice::run(&a),
        cli::Command::Sample(a) => sample::run(&a),
        cli::Command::Integrate(a) => integrate::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: the error and its causes, joined by ": ".
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
