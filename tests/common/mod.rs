//! Helpers shared by the integration tests: one way to run the built `morris` binary
//! and check how it exits, and one small seeded random generator.
//!
//! The binary's contract: status 0 on success; on bad input status 2, on any other
//! failure status 1, each with exactly one line on standard error, `error: ...`;
//! never a panic.

// Each test crate uses its own part of these helpers.
#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The built binary.
pub const BIN: &str = env!("CARGO_BIN_EXE_morris");

/// Exit status of bad input: a malformed position, an illegal move, a bad argument.
pub const BAD_INPUT: i32 = 2;

/// Exit status of every other failure: a damaged file, a full disk.
pub const FAILURE: i32 = 1;

/// Output as text; the binary writes only UTF-8.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("output is UTF-8")
}

/// A `Command` for the binary with these arguments, for tests that manage the child
/// themselves (kill it, close its pipes).
pub fn command<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut command = Command::new(BIN);
    command.args(args);
    command
}

/// One run of the binary, to be set up (input, environment, where output goes) and
/// then checked by [`Morris::ok`] or [`Morris::fails`].
pub struct Morris {
    command: Command,
    input: Option<Vec<u8>>,
    stdout: Option<Stdio>,
    stderr: Option<Stdio>,
    shown: String,
}

/// A run of the binary with these arguments.
pub fn morris<I, S>(args: I) -> Morris
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    Morris {
        shown: format!("morris {args:?}"),
        command: command(&args),
        input: None,
        stdout: None,
        stderr: None,
    }
}

impl Morris {
    /// Feed `input` on standard input (otherwise it is empty).
    pub fn stdin(mut self, input: impl AsRef<[u8]>) -> Morris {
        let input = input.as_ref();
        self.shown = format!("{} < {:?}", self.shown, String::from_utf8_lossy(input));
        self.input = Some(input.to_vec());
        self
    }

    /// Set an environment variable.
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Morris {
        self.command.env(key, value);
        self
    }

    /// Send standard output elsewhere than to the test (it then reads as empty).
    pub fn stdout(mut self, to: impl Into<Stdio>) -> Morris {
        self.stdout = Some(to.into());
        self
    }

    /// Send standard error elsewhere than to the test (it then reads as empty).
    pub fn stderr(mut self, to: impl Into<Stdio>) -> Morris {
        self.stderr = Some(to.into());
        self
    }

    /// Run to the end, without judging the result.
    pub fn output(mut self) -> Output {
        self.command.stdin(if self.input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        self.command
            .stdout(self.stdout.take().unwrap_or_else(Stdio::piped))
            .stderr(self.stderr.take().unwrap_or_else(Stdio::piped));
        let mut child = self.command.spawn().expect("the morris binary runs");
        // Written from a thread: the child may fill its output pipe before it reads.
        let writer = self.input.take().map(|input| {
            let mut stdin = child.stdin.take().expect("a piped stdin");
            std::thread::spawn(move || {
                // The child may stop reading early (at `quit`); that is its business.
                let _ = stdin.write_all(&input);
            })
        });
        let out = child.wait_with_output().expect("morris finishes");
        if let Some(writer) = writer {
            writer.join().expect("the input is written");
        }
        out
    }

    /// A run that must succeed without a panic; its standard output.
    pub fn ok(self) -> String {
        let shown = self.shown.clone();
        let out = self.output();
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(
            out.status.success(),
            "{shown} failed with {:?}:\n{stdout}\n{stderr}",
            out.status
        );
        assert!(!stderr.contains("panicked"), "{shown}: {stderr}");
        stdout
    }

    /// A run that must fail with exit status `code` and exactly one line on standard
    /// error, `error: ...`, without a panic: its standard output and the error line.
    pub fn fails(self, code: i32) -> (String, String) {
        let shown = self.shown.clone();
        let out = self.output();
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(
            !stderr.contains("panicked") && !stdout.contains("panicked"),
            "{shown} panicked:\n{stderr}"
        );
        assert_eq!(
            out.status.code(),
            Some(code),
            "{shown} should exit with {code}:\n{stdout}\n{stderr}"
        );
        assert!(
            stderr.starts_with("error: ") && stderr.ends_with('\n') && stderr.lines().count() == 1,
            "{shown}: not one line `error: ...`: {stderr:?}"
        );
        (stdout, stderr.trim_end().to_string())
    }
}

/// Run a command that must succeed; its standard output.
pub fn ok(args: &[&str]) -> String {
    morris(args).ok()
}

/// Run a command that must be refused as bad input (status 2, one error line, nothing
/// on standard output); the error line.
pub fn refused(args: &[&str]) -> String {
    let (stdout, error) = morris(args).fails(BAD_INPUT);
    assert!(stdout.is_empty(), "morris {args:?} printed: {stdout}");
    error
}

/// Run a command that must fail otherwise than by bad input (status 1, one error
/// line): its standard output and the error line.
pub fn fails(args: &[&str]) -> (String, String) {
    morris(args).fails(FAILURE)
}

/// A seeded xorshift64* generator: reproducible samples without an extra crate.
pub struct Rng(u64);

impl Rng {
    /// A generator from any seed (zero included).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
