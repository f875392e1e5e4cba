//! `morris`: the command line of the Nine Men's Morris solver. Each subcommand lives in
//! its own module, thin over the library crates. Bad input exits with status 2 and a
//! one-line message; other failures exit with status 1.
//!
//! The one `unsafe` block of the program is the promise that lets the tables be mapped
//! (`tb.rs`).

#![deny(unsafe_code)]

/// Print to standard output; a closed pipe (as with `| head`) ends the program quietly.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout(), $($arg)*) {
            crate::output_failed(&e);
        }
    }};
}

/// Print a line to standard output, like [`out!`].
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            crate::output_failed(&e);
        }
    }};
}

/// Print a line to standard error. Where standard error cannot be written there is
/// nowhere to say so: the program ends with a failure status instead of a panic.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stderr(), $($arg)*) {
            crate::stderr_failed(&e);
        }
    }};
}

mod analyze;
mod args;
mod bench;
mod convert;
mod describe;
mod generate;
mod malom;
mod r#match;
mod moves;
mod pack;
mod perft;
mod play;
mod probe;
mod progress;
mod puzzles;
mod report;
mod review;
mod serve;
mod show;
mod solve;
mod stats;
mod tb;
mod uci;
mod verify;

use clap::{Parser, Subcommand};
use std::io::Write as _;
use std::process::ExitCode;

/// Strong solver and analysis engine for Nine Men's Morris (Standard and No-flying).
#[derive(Parser)]
#[command(name = "morris", version, about, long_about = None)]
#[command(
    after_help = "Examples:\n  morris show --moves \"d6 d2 f4\"\n  morris moves --fen \".../.../.../....../.../.../... w 9 9\"\n  morris perft 5"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Show(show::Args),
    Moves(moves::Args),
    Perft(perft::Args),
    Generate(generate::Args),
    Verify(verify::Args),
    Convert(convert::Args),
    Pack(pack::Args),
    Stats(stats::Args),
    Malom(malom::Args),
    Probe(probe::Args),
    Solve(solve::Args),
    Analyze(analyze::Args),
    Bench(bench::Args),
    Play(play::Args),
    Serve(serve::Args),
    Puzzles(puzzles::Args),
    Review(review::Args),
    Uci(uci::Args),
    Match(r#match::Args),
}

/// Status of a program killed by SIGPIPE (128 + 13), as other tools end when their
/// reader goes away.
const BROKEN_PIPE: i32 = 141;

/// Standard output failed: a reader that went away ends the program quietly, anything
/// else is an error.
fn output_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(BROKEN_PIPE);
    }
    error_line(format_args!("cannot write to standard output: {e}"));
    std::process::exit(1);
}

/// Standard error failed: nothing can be reported, only the status tells.
fn stderr_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(BROKEN_PIPE);
    }
    std::process::exit(1);
}

/// Print the one-line `error: ...` of a failure. The status already says it failed, so
/// a standard error that cannot be written changes nothing.
fn error_line(message: std::fmt::Arguments) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "error: {message}");
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help, help and --version: the text is the output, and must arrive.
            if let Err(e) = e.print().and_then(|()| std::io::stdout().flush()) {
                output_failed(&e);
            }
            return ExitCode::SUCCESS;
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // Already a failure: an unwritable standard error changes nothing.
            let _ = e.print();
            return ExitCode::from(2);
        }
        Err(e) => {
            error_line(format_args!("{}", one_line(&e)));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Show(a) => show::run(&a),
        Command::Moves(a) => moves::run(&a),
        Command::Perft(a) => perft::run(&a),
        Command::Generate(a) => generate::run(&a),
        Command::Verify(a) => verify::run(&a),
        Command::Convert(a) => convert::run(&a),
        Command::Pack(a) => pack::run(&a),
        Command::Stats(a) => stats::run(&a),
        Command::Malom(a) => malom::run(&a),
        Command::Probe(a) => probe::run(&a),
        Command::Solve(a) => solve::run(&a),
        Command::Analyze(a) => analyze::run(&a),
        Command::Bench(a) => bench::run(&a),
        Command::Play(a) => play::run(&a),
        Command::Serve(a) => serve::run(&a),
        Command::Puzzles(a) => puzzles::run(&a),
        Command::Review(a) => review::run(&a),
        Command::Uci(a) => uci::run(&a),
        Command::Match(a) => r#match::run(&a),
    };
    match result {
        Ok(()) => {
            // What is still buffered must arrive too: a full disk is a failure.
            if let Err(e) = std::io::stdout().flush() {
                output_failed(&e);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            error_line(format_args!("{e:#}"));
            if e.is::<args::InputError>() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// Clap's message on one line: its first line, without the `error: ` prefix, plus the
/// missing or offending argument when the first line does not name it.
fn one_line(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let mut lines = rendered.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("bad arguments");
    let first = first
        .strip_prefix("error: ")
        .unwrap_or(first)
        .trim()
        .to_string();
    match lines.next() {
        Some(next) if e.kind() == clap::error::ErrorKind::MissingRequiredArgument => {
            format!("{first} {}; see --help", next.trim())
        }
        _ => format!("{first}; see --help"),
    }
}
