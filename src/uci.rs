//! `morris uci`: an engine on standard input and output, speaking the protocol of
//! Sanmill's `tgf mill uci`, so that the tools of the field can drive morris.
//!
//! Two threads. The reading thread parses every command, keeps the position and the
//! options, and answers what needs no search (`uci`, `isready` while searching,
//! errors). The search thread owns the tablebases and the searcher; it takes jobs
//! (options, new game, `isready`, `go`) in the order they were sent, so an answer
//! never overtakes the commands before it. `stop` raises a flag the running search
//! watches ([`Searcher::set_stop`]), so it is honoured at once.
//!
//! Moves are atomic here (a capture is part of its move), but the protocol sends a
//! capture as its own token `xb4`, after the move that closed the mill, and asks for
//! it with its own `go`. A position whose last token closed a mill without its capture
//! is kept as the position before that move plus the half-move owed a capture; the
//! search thread remembers the whole move it chose when it answered only its first
//! half, and answers the capture of that same move on the next `go`.

use crate::tb::TbDir;
use morris_engine::{notation, Color, Game, Move, Position, Rules, Variant};
use morris_solver::{parent_score, Limits, SearchResult, Searcher, Strategy, MATE, MATE_BOUND};
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The thinking time of a `go` that sets no limit of its own, in milliseconds (as
/// Sanmill's `MoveTimeMs` default).
const DEFAULT_MOVETIME_MS: u64 = 1000;

/// The largest `movetime`, `wtime` and such: a day, in milliseconds.
const MAX_MS: u64 = 24 * 3600 * 1000;

/// Run as an engine: read protocol commands on standard input, answer on standard
/// output.
#[derive(clap::Args)]
#[command(
    after_help = "Commands: uci, isready, setoption name N value V, ucinewgame,\n\
position startpos|fen STRING [moves ...], go [depth N] [movetime MS] [nodes N]\n\
[infinite] [wtime MS btime MS winc MS binc MS], stop, d (show the position), quit.\n\n\
Moves as Sanmill writes them: d6 (place), d6-d5 (slide or fly), and a capture as its\n\
own token after the move that closed the mill: position startpos moves d6 f4 d2 b4 d7\n\
xb4. The engine answers one token at a time (bestmove d7, then on the next go\n\
bestmove xb4), and bestmove none once the game is over. Scores are from White's\n\
point of view: score cp N, or score mate N (White wins in N moves; negative: Black).\n\
A go without limits thinks for 1 second.\n\n\
Options: PerfectDatabasePath (the tablebase directory, default --tb),\n\
UsePerfectDatabase, Hash (MiB), Threads, Variant (standard, no-flying), Rules (a\n\
rule set as --rules takes it, e.g. standard,captures=per-mill: a move taking two\n\
pieces answers its captures one token at a time), Strategy (perfect, classes,\n\
ultra).\n\n\
Examples:\n  morris uci\n  printf 'position startpos moves d6\\ngo depth 4\\nquit\\n' | morris uci\n  \
morris uci --tb /data/tablebases"
)]
pub struct Args {
    #[command(flatten)]
    tb: TbDir,
}

/// The engine's options, as `setoption` sets them.
#[derive(Clone, Debug, PartialEq)]
struct Options {
    tb_path: PathBuf,
    use_tb: bool,
    hash_mb: usize,
    threads: usize,
    rules: Rules,
    strategy: Strategy,
}

/// The position commands set up: a game, and the part of a move that closed a mill
/// and still owes a capture (the move alone, or with the first of two captures).
#[derive(Clone, Debug)]
struct State {
    game: Game,
    pending: Option<Move>,
}

impl State {
    fn start(rules: Rules) -> State {
        State {
            game: Game::new(Position::start(rules)),
            pending: None,
        }
    }
}

/// The limits of one `go`.
#[derive(Clone, Copy, Debug, Default)]
struct Go {
    depth: Option<u32>,
    time: Option<Duration>,
    nodes: Option<u64>,
    infinite: bool,
}

/// Work for the search thread, done in the order sent.
enum Job {
    Configure(Options),
    NewGame,
    Ready,
    /// A `go`, with the flag its `stop` raises.
    Search(Box<State>, Go, Arc<AtomicBool>),
}

/// Run the command.
///
/// # Errors
/// Standard input cannot be read.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let mut engine = Engine::new(&args.tb);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        // Bytes that are not UTF-8 are replaced, and then named in the error.
        let text = String::from_utf8_lossy(&line);
        if !engine.command(text.trim()) {
            break;
        }
    }
    engine.finish();
    Ok(())
}

/// The reading side of the engine.
struct Engine {
    options: Options,
    /// The position set up, or why the last `position` was refused.
    state: Result<State, String>,
    jobs: Option<Sender<Job>>,
    worker: Option<JoinHandle<()>>,
    /// How many `go`s were sent.
    sent: u64,
    /// How many of them the search thread has answered (counted before their
    /// `bestmove`, so that the `go` it prompts finds the engine free).
    answered: Arc<AtomicU64>,
    /// The stop flags of the `go`s sent and not yet answered, by number: `stop`
    /// raises them all (a `go` queued behind a running one stops too).
    running: Vec<(u64, Arc<AtomicBool>, bool)>,
}

/// An `info string error` line naming the command.
fn error(command: &str, message: impl std::fmt::Display) {
    outln!("info string error {command}: {message}");
}

impl Engine {
    fn new(tb: &TbDir) -> Engine {
        let options = Options {
            tb_path: tb.path(),
            use_tb: true,
            hash_mb: 64,
            threads: 1,
            rules: Rules::STANDARD,
            strategy: Strategy::default(),
        };
        let (jobs, rx) = channel();
        let answered = Arc::new(AtomicU64::new(0));
        let worker = {
            let (tb, options, answered) = (tb.clone(), options.clone(), answered.clone());
            std::thread::Builder::new()
                .name("search".into())
                .spawn(move || worker(&tb, options, &rx, &answered))
        };
        let worker = match worker {
            Ok(w) => Some(w),
            Err(e) => {
                outln!("info string error: cannot start the search thread: {e}");
                None
            }
        };
        Engine {
            state: Ok(State::start(options.rules)),
            options,
            jobs: Some(jobs),
            worker,
            sent: 0,
            answered,
            running: Vec::new(),
        }
    }

    /// Whether a `go` is under way or queued.
    fn busy(&mut self) -> bool {
        let answered = self.answered.load(SeqCst);
        self.running.retain(|(n, _, _)| *n > answered);
        !self.running.is_empty()
    }

    /// Stop every `go` not yet answered, or only the infinite ones.
    fn stop(&mut self, all: bool) {
        self.busy();
        for (_, flag, infinite) in &self.running {
            if all || *infinite {
                flag.store(true, SeqCst);
            }
        }
    }

    fn send(&self, job: Job) {
        let sent = self.jobs.as_ref().is_some_and(|j| j.send(job).is_ok());
        if !sent {
            outln!("info string error: the search thread is gone");
        }
    }

    /// Handle one line; `false` on `quit`.
    fn command(&mut self, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some(&name) = tokens.first() else {
            return true;
        };
        let rest = &tokens[1..];
        match name {
            "uci" => self.uci(),
            "isready" => {
                if self.busy() {
                    outln!("readyok");
                } else {
                    self.send(Job::Ready);
                }
            }
            "setoption" => match self.setoption(rest) {
                Ok(()) => self.send(Job::Configure(self.options.clone())),
                Err(e) => error("setoption", e),
            },
            "ucinewgame" => {
                self.state = Ok(State::start(self.options.rules));
                self.send(Job::NewGame);
            }
            "position" => {
                self.state = position(rest, self.options.rules);
                if let Err(e) = &self.state {
                    error("position", e);
                }
            }
            "go" => self.go(rest),
            "stop" => self.stop(true),
            "ponderhit" => {}
            "d" => self.show(),
            "quit" => {
                self.stop(true);
                return false;
            }
            _ => error(
                "unknown command",
                format!("'{}'", line.chars().take(80).collect::<String>()),
            ),
        }
        true
    }

    fn uci(&self) {
        outln!("id name morris {}", env!("CARGO_PKG_VERSION"));
        outln!("id author the morris developers");
        outln!(
            "option name PerfectDatabasePath type string default {}",
            self.options.tb_path.display()
        );
        outln!("option name UsePerfectDatabase type check default true");
        outln!("option name Hash type spin default 64 min 1 max 8192");
        outln!("option name Threads type spin default 1 min 1 max 64");
        outln!("option name Variant type combo default standard var standard var no-flying");
        outln!("option name Rules type string default standard");
        let vars: Vec<String> = Strategy::ALL
            .iter()
            .map(|s| format!("var {}", s.name()))
            .collect();
        outln!(
            "option name Strategy type combo default {} {}",
            Strategy::default().name(),
            vars.join(" ")
        );
        outln!("uciok");
    }

    /// Apply `setoption name N value V` (names in any letter case).
    fn setoption(&mut self, tokens: &[&str]) -> Result<(), String> {
        if tokens.first().map(|t| t.to_ascii_lowercase()) != Some("name".into()) {
            return Err("expected 'setoption name NAME value VALUE'".into());
        }
        let split = tokens
            .iter()
            .position(|t| t.eq_ignore_ascii_case("value"))
            .unwrap_or(tokens.len());
        let name = tokens[1..split].join(" ");
        let value = tokens.get(split + 1..).unwrap_or(&[]).join(" ");
        let number = |min: usize, max: usize| {
            value
                .parse::<usize>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| format!("{name} '{value}' is not a number from {min} to {max}"))
        };
        match name.to_ascii_lowercase().as_str() {
            "perfectdatabasepath" => {
                if value.is_empty() {
                    return Err("PerfectDatabasePath needs a directory".into());
                }
                self.options.tb_path = PathBuf::from(value);
            }
            "useperfectdatabase" => {
                self.options.use_tb = match value.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("UsePerfectDatabase '{value}' is not true or false")),
                }
            }
            "hash" => self.options.hash_mb = number(1, 8192)?,
            "threads" => self.options.threads = number(1, 64)?,
            "variant" => {
                self.options.rules = match value.to_ascii_lowercase().as_str() {
                    "standard" => Variant::Standard.rules(),
                    "no-flying" | "noflying" => Variant::NoFlying.rules(),
                    _ => return Err(format!("Variant '{value}' is not standard or no-flying")),
                };
                // A position of the other rules means nothing under these.
                self.state = Ok(State::start(self.options.rules));
            }
            "rules" => {
                self.options.rules = Rules::parse(&value.to_ascii_lowercase())
                    .map_err(|e| format!("Rules '{value}': {e}"))?;
                // A position of the other rules means nothing under these.
                self.state = Ok(State::start(self.options.rules));
            }
            "strategy" => {
                self.options.strategy = Strategy::from_name(&value).ok_or_else(|| {
                    let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                    format!("Strategy '{value}' is not one of {}", names.join(", "))
                })?;
            }
            "" => return Err("the option name is missing".into()),
            _ => return Err(format!("no option named '{name}'")),
        }
        Ok(())
    }

    /// Queue a search (behind a running one, as a script sends them).
    fn go(&mut self, tokens: &[&str]) {
        let state = match &self.state {
            Ok(s) => s.clone(),
            Err(e) => return error("go", format!("no position: the last one was refused ({e})")),
        };
        let side = state.game.position().side_to_move();
        let go = match parse_go(tokens, side) {
            Ok(go) => go,
            Err(e) => return error("go", e),
        };
        let flag = Arc::new(AtomicBool::new(false));
        self.sent += 1;
        self.running
            .push((self.sent, Arc::clone(&flag), go.infinite));
        self.send(Job::Search(Box::new(state), go, flag));
    }

    fn show(&self) {
        match &self.state {
            Ok(s) => {
                let pos = s.game.position();
                out!("{}", notation::position_diagram(pos));
                outln!("fen {}", notation::setup_to_sanmill(&pos.to_setup()));
                if let Some(half) = s.pending {
                    outln!("pending {half}: a capture is owed");
                }
            }
            Err(e) => outln!("no position: {e}"),
        }
    }

    /// End (after `quit`, which stopped every search, or at the end of the input):
    /// stop the infinite searches, let the others finish and write their `bestmove`,
    /// and wait for the search thread.
    fn finish(&mut self) {
        self.stop(false);
        self.jobs = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

/// Parse the arguments of `position`.
fn position(tokens: &[&str], rules: Rules) -> Result<State, String> {
    let moves_at = tokens.iter().position(|t| t.eq_ignore_ascii_case("moves"));
    let (setup, moves) = match moves_at {
        Some(i) => (&tokens[..i], &tokens[i + 1..]),
        None => (tokens, &[][..]),
    };
    let start = match setup.split_first() {
        Some((&"startpos", [])) => Position::start(rules),
        Some((&"startpos", extra)) => {
            return Err(format!("unexpected '{}' after startpos", extra[0]))
        }
        Some((&"fen", [])) => return Err("fen needs a position string".into()),
        Some((&"fen", fen)) => {
            notation::parse_position(&fen.join(" "), rules).map_err(|e| e.to_string())?
        }
        Some((t, _)) => return Err(format!("'{t}' is not startpos or fen")),
        None => return Err("expected startpos or fen".into()),
    };
    let mut state = State {
        game: Game::new(start),
        pending: None,
    };
    for (i, &token) in moves.iter().enumerate() {
        play_token(&mut state, token).map_err(|e| format!("move {} '{token}': {e}", i + 1))?;
    }
    Ok(state)
}

/// Play one protocol token: a placement or a move, or the capture `x<point>` that
/// completes the move before it.
fn play_token(state: &mut State, token: &str) -> Result<(), String> {
    let lower = token.to_ascii_lowercase();
    if let Some(point) = lower.strip_prefix('x') {
        let half = state
            .pending
            .take()
            .ok_or("a capture, but the move before it closed no mill")?;
        let c = notation::parse_point(point).map_err(|e| e.to_string())?;
        let m = match half.capture() {
            None => half.with_capture(c),
            Some(first) => half.with_captures(first, c),
        };
        // Under per-mill captures a move closing two mills owes a second capture.
        let owes_more = half.capture().is_none()
            && !state.game.position().is_legal(m)
            && completions(state.game.position(), m).next().is_some();
        if owes_more {
            state.pending = Some(m);
            return Ok(());
        }
        return state.game.play(m).map_err(|e| {
            state.pending = Some(half);
            format!("{m} is illegal: {e}")
        });
    }
    if let Some(half) = state.pending {
        return Err(format!(
            "{half} closed a mill: its capture (x<point>) comes first"
        ));
    }
    let m = notation::parse_move(token).map_err(|e| e.to_string())?;
    let pos = *state.game.position();
    let owes = m.capture().is_none()
        && !pos.is_legal(m)
        && pos
            .legal_moves()
            .iter()
            .any(|l| l.capture().is_some() && l.without_capture() == m);
    if owes && state.game.end().is_none() {
        state.pending = Some(m);
        return Ok(());
    }
    state.game.play(m).map_err(|e| format!("illegal: {e}"))
}

/// Parse the arguments of `go`; `side` is to move (for `wtime` and `btime`).
fn parse_go(tokens: &[&str], side: Color) -> Result<Go, String> {
    let mut go = Go::default();
    let mut clock = [None::<u64>; 2];
    let mut inc = [0u64; 2];
    let mut it = tokens.iter();
    while let Some(&t) = it.next() {
        let mut number = |max: u64| -> Result<u64, String> {
            let v = it.next().ok_or_else(|| format!("{t} needs a number"))?;
            v.parse::<u64>()
                .ok()
                .filter(|n| *n <= max)
                .ok_or_else(|| format!("{t} '{v}' is not a number from 0 to {max}"))
        };
        match t {
            "depth" => {
                let d = number(255)?;
                if d == 0 {
                    return Err("depth must be at least 1".into());
                }
                go.depth = Some(d as u32);
            }
            "movetime" => go.time = Some(Duration::from_millis(number(MAX_MS)?.max(1))),
            "nodes" => go.nodes = Some(number(u64::MAX)?.max(1)),
            "infinite" => go.infinite = true,
            "wtime" => clock[0] = Some(number(MAX_MS)?),
            "btime" => clock[1] = Some(number(MAX_MS)?),
            "winc" => inc[0] = number(MAX_MS)?,
            "binc" => inc[1] = number(MAX_MS)?,
            "movestogo" => {
                number(10_000)?;
            }
            _ => return Err(format!("unknown argument '{t}'")),
        }
    }
    let us = side.index();
    if go.time.is_none() {
        if let Some(left) = clock[us] {
            // A share of the clock: a twentieth and half the increment, never more
            // than half of what is left.
            let ms = (left / 20 + inc[us] / 2).min(left / 2).max(1);
            go.time = Some(Duration::from_millis(ms));
        }
    }
    if go.infinite {
        go.time = None;
    } else if go.time.is_none() && go.depth.is_none() && go.nodes.is_none() {
        go.time = Some(Duration::from_millis(DEFAULT_MOVETIME_MS));
    }
    Ok(go)
}

/// The whole move last answered by its first half alone: the position it was chosen
/// in (full-state hash), the move and its search.
struct Plan {
    key: u64,
    mv: Move,
    result: SearchResult,
}

/// The search thread: opens the tables the options name, keeps a searcher over them,
/// and does the jobs in order until the channel closes.
fn worker(tb: &TbDir, mut options: Options, jobs: &Receiver<Job>, answered: &AtomicU64) {
    let mut plan: Option<Plan> = None;
    loop {
        let tables = if options.use_tb {
            match tb.with_dir(options.tb_path.clone()).open() {
                Ok(t) => Some(t),
                Err(e) => {
                    error("tablebases", format!("{e:#}; searching without them"));
                    None
                }
            }
        } else {
            None
        };
        let mut searcher = match Searcher::new(tables.as_ref(), options.hash_mb) {
            Ok(s) => Some(s),
            Err(e) => {
                error("Hash", format!("{e}; using 1 MiB"));
                Searcher::new(tables.as_ref(), 1).ok()
            }
        };
        // Until the options name other tables or another table size.
        loop {
            if let Some(s) = searcher.as_mut() {
                s.set_strategy(options.strategy);
            }
            let Ok(job) = jobs.recv() else { return };
            match job {
                Job::Configure(new) => {
                    let reopen = new.use_tb != options.use_tb
                        || new.tb_path != options.tb_path
                        || new.hash_mb != options.hash_mb;
                    options = new;
                    if reopen {
                        break;
                    }
                }
                Job::NewGame => plan = None,
                Job::Ready => outln!("readyok"),
                Job::Search(state, go, stop) => {
                    let answer = match &mut searcher {
                        Some(s) => {
                            s.set_stop(Arc::clone(&stop));
                            search(s, &state, go, &options, &mut plan, &stop)
                        }
                        None => {
                            error(
                                "go",
                                "no searcher: the transposition table could not be allocated",
                            );
                            None
                        }
                    };
                    // Free for the next `go` before the answer that prompts it.
                    answered.fetch_add(1, SeqCst);
                    if let Some(answer) = answer {
                        outln!("bestmove {answer}");
                    }
                }
            }
        }
    }
}

/// One `go`: its `info` lines, then the token of its `bestmove` (none: an error, said).
fn search(
    searcher: &mut Searcher<'_>,
    state: &State,
    go: Go,
    options: &Options,
    plan: &mut Option<Plan>,
    stop: &AtomicBool,
) -> Option<String> {
    let game = &state.game;
    let pos = *game.position();
    if state.pending.is_none() {
        if let Some(end) = game.end() {
            outln!("info string game over: {end}");
            wait_for_stop(go, stop);
            return Some("none".into());
        }
    }
    let limits = Limits {
        depth: go.depth,
        time: go.time,
        nodes: go.nodes,
        threads: options.threads,
        ..Limits::default()
    };
    let history = game.history();
    let chosen = match state.pending {
        None => searcher.search(&pos, limits, &history).map(|r| {
            let m = r.best;
            (m, r)
        }),
        Some(half) => owed_capture(searcher, &pos, half, limits, &history, plan),
    };
    let (mv, result) = match chosen {
        Ok((Some(m), r)) => (m, r),
        Ok((None, _)) => {
            wait_for_stop(go, stop);
            return Some("none".into());
        }
        Err(e) => {
            error("go", e);
            return None;
        }
    };
    let mut pv: Vec<Move> = result.pv.clone();
    if pv.first() != Some(&mv) {
        pv = vec![mv];
    }
    let mut line: Vec<String> = tokens_after(pv[0], state.pending);
    line.extend(pv[1..].iter().flat_map(|&m| tokens(m)));
    let answer = if let Some(part) = state.pending {
        // The move, and the captures already played, are behind us.
        let done = 1 + part.captures().count();
        line.drain(..done);
        // A second capture still to answer keeps the plan for the next `go`.
        *plan = (mv.captures().count() > done).then(|| Plan {
            key: pos.hash(),
            mv,
            result: result.clone(),
        });
        line.first().cloned().unwrap_or_default()
    } else {
        *plan = mv.capture().map(|_| Plan {
            key: pos.hash(),
            mv,
            result: result.clone(),
        });
        line[0].clone()
    };
    outln!(
        "info depth {} {} nodes {} pv {}",
        result.depth,
        white_score(result.score, pos.side_to_move()),
        result.stats.nodes,
        line.join(" ")
    );
    wait_for_stop(go, stop);
    Some(answer)
}

/// The whole move that completes `half` (which closed a mill in `pos`) with a capture:
/// the one planned when `half` was answered, if that is the move; otherwise the best
/// of the completions by a search of each.
fn owed_capture(
    searcher: &mut Searcher<'_>,
    pos: &Position,
    half: Move,
    limits: Limits,
    history: &[u64],
    plan: &mut Option<Plan>,
) -> Result<(Option<Move>, SearchResult), morris_solver::SearchError> {
    let choices: Vec<Move> = completions(pos, half).collect();
    if let Some(p) = plan.take() {
        if p.key == pos.hash() && choices.contains(&p.mv) {
            return Ok((Some(p.mv), p.result));
        }
    }
    let mut path = history.to_vec();
    path.push(pos.hash());
    let share = Limits {
        time: limits.time.map(|t| t / choices.len().max(1) as u32),
        ..limits
    };
    let mut best: Option<(i32, Move, SearchResult)> = None;
    for &m in &choices {
        let child = pos.play_unchecked(m);
        let r = searcher.search(&child, share, &path)?;
        let score = parent_score(r.score);
        if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
            let mut pv = vec![m];
            pv.extend(r.pv.iter().copied());
            let result = SearchResult {
                score,
                pv,
                best: Some(m),
                depth: r.depth + 1,
                ..r
            };
            best = Some((score, m, result));
        }
    }
    match best {
        Some((_, m, r)) => Ok((Some(m), r)),
        None => Ok((None, searcher.search(pos, limits, history)?)),
    }
}

/// The legal moves of `pos` that complete `part` (a move that closed a mill, with none
/// or some of its captures): the same move, taking more pieces, `part`'s among them.
fn completions(pos: &Position, part: Move) -> impl Iterator<Item = Move> + '_ {
    let given: Vec<_> = part.captures().collect();
    pos.legal_moves()
        .iter()
        .copied()
        .filter(move |m| {
            m.without_capture() == part.without_capture()
                && m.captures().count() > given.len()
                && given.iter().all(|g| m.captures().any(|c| c == *g))
        })
        .collect::<Vec<_>>()
        .into_iter()
}

/// A move as protocol tokens: the move, then each capture as a token of its own, those
/// of `given` (the part of it already played) first.
fn tokens_after(m: Move, given: Option<Move>) -> Vec<String> {
    let mut t = vec![m.without_capture().to_string()];
    let first: Vec<_> = given.iter().flat_map(|g| g.captures()).collect();
    let rest = m.captures().filter(|c| !first.contains(c));
    t.extend(first.iter().copied().chain(rest).map(|c| format!("x{c}")));
    t
}

/// A move as protocol tokens: the move, then each capture as a token of its own.
fn tokens(m: Move) -> Vec<String> {
    tokens_after(m, None)
}

/// A score for `side` as the protocol gives it, from White's point of view:
/// `score mate N` (N moves of the winner, negative when Black wins) or `score cp N`.
fn white_score(score: i32, side: Color) -> String {
    let white = if side == Color::White { score } else { -score };
    if white.abs() > MATE_BOUND {
        let plies = MATE - white.abs();
        let moves = (plies + 1) / 2;
        format!("score mate {}", if white > 0 { moves } else { -moves })
    } else {
        format!("score cp {white}")
    }
}

/// An infinite search answers only once told to stop.
fn wait_for_stop(go: Go, stop: &AtomicBool) {
    while go.infinite && !stop.load(SeqCst) {
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos_after(moves: &str) -> State {
        let tokens: Vec<&str> = moves.split_whitespace().collect();
        position(&tokens, Rules::STANDARD).expect(moves)
    }

    #[test]
    fn a_capture_token_completes_the_move_that_closed_the_mill() {
        let s = pos_after("startpos moves d7 f4 a7 b4 g7");
        assert_eq!(s.pending.map(|m| m.to_string()), Some("g7".into()));
        assert_eq!(s.game.moves().len(), 4);
        let s = pos_after("startpos moves d7 f4 a7 b4 g7 xf4");
        assert_eq!(s.pending, None);
        assert_eq!(
            s.game.moves().last().map(|m| m.to_string()),
            Some("g7xf4".into())
        );
        // Our own notation with the capture attached is read too.
        let s = pos_after("startpos moves d7 f4 a7 b4 g7xb4");
        assert_eq!(s.game.moves().len(), 5);
    }

    #[test]
    fn two_capture_tokens_complete_a_move_that_closed_two_mills() {
        let per_mill = Rules::parse("standard,captures=per-mill").expect("a spec");
        let fen = "fen WW./B.B/.../.....W/.../B../..W w 5 6 moves";
        let at = |moves: &str| {
            let text = format!("{fen} {moves}");
            let tokens: Vec<&str> = text.split_whitespace().collect();
            position(&tokens, per_mill)
        };
        let s = at("g7 xb6").expect("half a move");
        assert_eq!(s.pending.map(|m| m.to_string()), Some("g7xb6".into()));
        assert!(s.game.moves().is_empty());
        let s = at("g7 xb6 xb2").expect("the whole move");
        assert_eq!(s.pending, None);
        let played = s.game.moves().last().copied().expect("a move");
        assert_eq!(played.captures().count(), 2);
        assert!(at("g7 xb6 xb6").expect_err("twice").contains("move 3"));
        assert!(at("g7 xb6 d1").expect_err("owed").contains("capture"));
        // The Standard rules take one piece.
        let text = format!("{fen} g7 xb6 xb2");
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let e = position(&tokens, Rules::STANDARD).expect_err("one capture");
        assert!(e.contains("move 3"), "{e}");
    }

    #[test]
    fn bad_positions_say_what_is_wrong() {
        let bad = |t: &str| {
            let tokens: Vec<&str> = t.split_whitespace().collect();
            position(&tokens, Rules::STANDARD).expect_err(t)
        };
        assert!(bad("startpos moves d7 xd7").contains("move 2 'xd7'"));
        assert!(bad("startpos moves d7 f4 a7 b4 g7 d1").contains("capture"));
        assert!(bad("startpos moves d7 f4 a7 b4 g7 xa1").contains("move 6"));
        assert!(bad("startpos moves d7 d7").contains("move 2 'd7'"));
        assert!(bad("fen").contains("position string"));
        assert!(bad("fen xx").contains("position"));
        assert!(bad("somewhere").contains("startpos or fen"));
        assert!(bad("startpos extra").contains("extra"));
    }

    #[test]
    fn go_arguments() {
        let go = parse_go(&["depth", "3", "nodes", "100"], Color::White).unwrap();
        assert_eq!((go.depth, go.nodes, go.time), (Some(3), Some(100), None));
        let go = parse_go(&[], Color::White).unwrap();
        assert_eq!(go.time, Some(Duration::from_millis(DEFAULT_MOVETIME_MS)));
        let go = parse_go(&["infinite"], Color::White).unwrap();
        assert!(go.infinite && go.time.is_none());
        let go = parse_go(&["wtime", "2000", "btime", "40000"], Color::Black).unwrap();
        assert_eq!(go.time, Some(Duration::from_millis(2000)));
        for bad in [
            &["depth"][..],
            &["depth", "0"],
            &["depth", "x"],
            &["movetime", "-1"],
            &["fast"],
        ] {
            assert!(parse_go(bad, Color::White).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn scores_are_from_whites_point_of_view() {
        assert_eq!(white_score(12, Color::White), "score cp 12");
        assert_eq!(white_score(12, Color::Black), "score cp -12");
        assert_eq!(white_score(MATE - 1, Color::White), "score mate 1");
        assert_eq!(white_score(MATE - 3, Color::Black), "score mate -2");
        assert_eq!(white_score(-(MATE - 4), Color::Black), "score mate 2");
    }
}
