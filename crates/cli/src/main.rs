//! `gradfree`: gradient-free optimization and integration from the command line.

/// `println!` that returns an error instead of panicking when standard output is closed or full
/// (`gradfree ... | head`, `> /dev/full`); for functions returning `anyhow::Result`.
macro_rules! outln {
    ($($arg:tt)*) => {
        crate::stdout_line(format_args!($($arg)*))?
    };
}

/// `eprintln!` that never panics (this definition shadows the standard one in every module of
/// the command): a standard error that cannot be written (`2>/dev/full`, closed) loses the
/// message, and the command ends as it would have, its exit status saying how.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod applies;
mod args;
mod bo;
mod chart;
mod features;
mod flags;
mod infer;
mod integrate;
mod lattice;
mod list;
mod optimize;
mod plot;
mod points_io;
mod reproduce;
mod run_files;
mod sample;
mod shared_flags;
mod signals;
mod startup;
mod train;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

/// The allocator: mimalloc keeps freed pages for reuse where glibc's returned the training
/// stack's per-step tensors to the system (see the workspace manifest), with a message instead of
/// an abort when an allocation fails ([`startup::Guarded`]).
#[global_allocator]
static ALLOCATOR: startup::Guarded = startup::Guarded;

/// Error of a write to standard output (see [`outln!`]).
#[derive(Debug, thiserror::Error)]
#[error("writing to standard output: {}", gradfree_core::files::describe_io(.0))]
struct StdoutError(std::io::Error);

/// Writes one line to standard output.
fn stdout_line(args: std::fmt::Arguments<'_>) -> Result<(), StdoutError> {
    use std::io::Write;
    // Rust's standard output drops writes to a closed descriptor without an error (EBADF reads
    // as success); a closed one is an error here, as it is for every other program.
    if !startup::stdout_writable() {
        return Err(StdoutError(std::io::Error::other("standard output is closed (Bad file descriptor)")));
    }
    let mut out = std::io::stdout().lock();
    out.write_fmt(args).and_then(|()| out.write_all(b"\n")).map_err(StdoutError)
}

/// Whether a command's results go to standard output: no file of them is written, or the user
/// asked for them there (`--json`), so that a closed standard output would lose them.
fn results_on_stdout(c: &args::Command) -> bool {
    use args::Command as C;
    match c {
        C::Optimize(a) => a.output.json || (a.files.log.is_none() && a.files.checkpoint_path().is_none()),
        C::Bo(a) => a.output.json || (a.files.log.is_none() && a.files.checkpoint_path().is_none()),
        C::Infer(a) => a.output.json || (a.chains_out.is_none() && a.files.checkpoint_path().is_none()),
        C::Train(a) => a.output.json || (a.files.log.is_none() && a.files.checkpoint_path().is_none()),
        C::Sample(a) => a.json || a.output.as_ref().is_none_or(|p| p.as_os_str() == "-"),
        C::Lattice(a) => a.json || a.output.is_none(),
        C::Features(a) => a.json || a.output.is_none(),
        C::Plot(a) => a.json,
        C::Reproduce(a) => a.json,
        C::Integrate(_) | C::List(_) | C::Params(_) => true,
    }
}

/// Refuses to run with standard output closed (`gradfree ... >&-`) when the results go there
/// alone: every write to it would fail ([`startup::stdout_writable`]), so the run's results would
/// be lost after it did the work. A standard output that is open for writing is never refused,
/// whatever it is: `/dev/null` however it was opened (`> /dev/null`, `1<>/dev/null`, Python's
/// `subprocess.DEVNULL`), a file, a pipe or a terminal; a write that fails there (`/dev/full`, a
/// reader that went away) is reported when it happens.
fn check_stdout() -> Result<(), String> {
    if startup::stdout_writable() {
        return Ok(());
    }
    Err("standard output is closed: the results would be lost (redirect it to a file, or to /dev/null to discard them)".into())
}

/// The command line's definition: every command takes a negative number as the value of the flag
/// before it (`--dim -1` is an invalid `--dim`, `--b -50` a valid `--b`), never as a flag.
fn command() -> clap::Command {
    args::Cli::command().mut_subcommands(|c| c.allow_negative_numbers(true))
}

/// A parse error in two lines, where clap prints three to seven: `error: ...` (with clap's tip,
/// if it has one, after a semicolon) and the command's usage with where every option is listed.
fn usage_error(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut message = String::new();
    // The indented lines under the error line list what it is about (the missing arguments).
    let mut listing = false;
    for raw in text.lines() {
        let line = raw.trim();
        if listing && raw.starts_with("  ") && !line.is_empty() {
            message.push_str(if message.ends_with(':') { " " } else { ", " });
            message.push_str(line);
            continue;
        }
        listing = false;
        if let Some(first) = line.strip_prefix("error: ").filter(|_| message.is_empty()) {
            message.push_str(first);
            listing = first.ends_with(':');
        } else if let Some(tip) = line.strip_prefix("tip: ") {
            message.push_str("; ");
            message.push_str(tip);
        }
    }
    if message.is_empty() {
        message = text.lines().next().unwrap_or("invalid arguments").to_string();
    }
    // The subcommand the arguments name, if any: its usage, else the program's.
    let mut cmd = command();
    cmd.build();
    let sub = std::env::args().skip(1).find(|a| cmd.find_subcommand(a).is_some());
    let (usage, help) = match sub.as_deref().and_then(|name| cmd.find_subcommand_mut(name)) {
        Some(sub) => (sub.render_usage().to_string(), format!("gradfree {} --help", sub.get_name())),
        None => (cmd.render_usage().to_string(), "gradfree --help".to_string()),
    };
    let usage = usage.trim().trim_start_matches("Usage: ");
    format!("error: {message}\nusage: {usage} (`{help}` lists every option)")
}

/// Prints clap's help or version (`--help`, `--version`) to standard output and ends, with exit
/// status 2 if it cannot be written (`--help > /dev/full`); parse errors go to standard error in
/// two lines ([`usage_error`]), with clap's exit status (2).
fn clap_exit(e: clap::Error) -> ExitCode {
    use std::io::{IsTerminal, Write};
    if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        e.exit(); // `gradfree` alone: the help, on standard error, status 2
    }
    if e.use_stderr() {
        eprintln!("{}", usage_error(&e));
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    }
    if std::io::stdout().is_terminal() {
        e.exit();
    }
    if let Err(closed) = check_stdout() {
        eprintln!("error: {closed}");
        return ExitCode::from(2);
    }
    let mut out = std::io::stdout().lock();
    match write!(out, "{}", e.render()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(w) if w.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(w) => {
            eprintln!("error: writing to standard output: {w}");
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    startup::Guarded::reserve();
    startup::ignore_file_size_signal();
    let matches = match command().try_get_matches() {
        Ok(m) => m,
        Err(e) => return clap_exit(e),
    };
    let args = match args::Cli::from_arg_matches(&matches) {
        Ok(a) => a,
        Err(e) => return clap_exit(e),
    };
    if let Err(e) = startup::start_threads() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    signals::install();
    let refused = matches.subcommand().map_or(Ok(()), |(_, m)| applies::check(&args.command, m));
    if let Err(e) = refused.and_then(|()| if results_on_stdout(&args.command) { check_stdout() } else { Ok(()) }) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let result = match args.command {
        args::Command::List(a) => list::run(&a),
        args::Command::Optimize(a) => optimize::run(&a),
        args::Command::Params(a) => list::params(&a),
        args::Command::Plot(a) => plot::run(&a),
        args::Command::Reproduce(a) => reproduce::run(&a),
        args::Command::Lattice(a) => lattice::run(&a),
        args::Command::Sample(a) => sample::run(&a),
        args::Command::Integrate(a) => integrate::run(&a),
        args::Command::Features(a) => features::run(&a),
        args::Command::Bo(a) => bo::run(&a),
        args::Command::Infer(a) => infer::run(&a),
        args::Command::Train(a) => train::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`| head`) is not an error of ours: stop quietly, as Unix tools do.
        Err(e) if e.downcast_ref::<StdoutError>().is_some_and(|s| s.0.kind() == std::io::ErrorKind::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<signals::Stopped>().is_some() => {
            eprintln!("error: {e}");
            ExitCode::from(signals::STATUS)
        }
        Err(e) => {
            // One line: the error and its causes, joined by ": ", parameters named by their flags.
            eprintln!("error: {}", flags::render(&e));
            ExitCode::from(2)
        }
    }
}
