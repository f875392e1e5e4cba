//! `morris match`: two players play a series of games, colours alternating, and the
//! result is counted with a 95% interval of the score.
//!
//! A player is one of [`Spec`]: a uniformly random mover, the depth-limited search, a
//! tablebase [`Strategy`] (every strategy the solver has is a player of its name), or
//! an engine run as a child process and spoken to through the engine protocol. Each
//! is a [`Player`]: told of a new game, asked for a move, it answers a move or a
//! forfeit (an engine's illegal, missing or late move), which loses the game.
//!
//! One seeded generator drives every random choice of both players, in the order the
//! moves are asked for, so a match without engines is the same match every time.

use crate::args::{InputError, PositionArgs};
use crate::tb::TbDir;
use anyhow::Context as _;
use morris_engine::{notation, Color, Game, GameEnd, Move, Point, Position, Rules, Variant};
use morris_solver::{evaluate, parent_score, Limits, Rng, Searcher, Strategy};
use morris_tablebase::Tablebase;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Play a match between two players.
#[derive(clap::Args)]
#[command(after_help = "Players:\n  \
random         a uniformly random legal move\n  \
search:DEPTH   the depth-limited search without tables, random among equal best moves\n  \
perfect        a uniformly random move that keeps the value, by the tablebases (--tb);\n                 \
refused when the tables do not hold the start positions\n  \
uci:COMMAND    an engine speaking the engine protocol, started by the shell\n                 \
(--movetime a move; an illegal move, or none within --timeout, loses)\n\n\
Player A is White in game 1, Black in game 2, and so on. The games start from the\n\
position of --fen/--moves (default: the empty board), or from the positions of\n\
--openings FILE: one a line, a position string (ours or Sanmill's) or moves from the\n\
start; blank lines and lines starting with # are skipped; each is played twice, once\n\
with each colour. A game ends by the rules (two pieces, blockade, threefold\n\
repetition) or is adjudicated a draw at --max-plies, counted apart.\n\n\
--save writes a game a line: the moves (as `morris show --moves` reads them), a tab, the\n\
result (1-0, 0-1 or 1/2-1/2) and how it ended, and, for a game not from the empty\n\
board, a tab and its start position.\n\n\
Examples:\n  morris match search:3 random --games 20\n  \
morris match perfect random --fen \"WW./.../.../.....W/.../.../BBB b 0 0\" --tb tables\n  \
morris match \"uci:morris uci\" search:2 --games 4 --movetime 200 --option Hash=16")]
pub struct Args {
    /// Player A (White in the first game).
    player_a: String,

    /// Player B.
    player_b: String,

    /// Number of games.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    games: u32,

    /// Seed of every random choice.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,

    /// Plies after which a game is adjudicated a draw.
    #[arg(long, value_name = "PLIES", default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_plies: u32,

    /// Start positions, one a line (see below).
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,

    /// Thinking time of an engine (uci:) a move, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    movetime: u64,

    /// Milliseconds beyond --movetime after which an engine's move counts as missing.
    #[arg(long, value_name = "MS", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    timeout: u64,

    /// An engine option, NAME=VALUE, sent to every uci: player (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,

    /// Write every game to FILE.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,

    /// Print the moves of each game.
    #[arg(long)]
    verbose: bool,

    #[command(flatten)]
    position: PositionArgs,

    #[command(flatten)]
    tb: TbDir,
}

/// A player, as named on the command line.
#[derive(Clone, Debug, PartialEq)]
enum Spec {
    Random,
    Search(u32),
    Strategy(Strategy),
    Uci(String),
}

impl Spec {
    fn parse(s: &str) -> Result<Spec, InputError> {
        if let Some(command) = s.strip_prefix("uci:") {
            if command.trim().is_empty() {
                return Err(InputError(format!("player '{s}': uci: needs a command")));
            }
            return Ok(Spec::Uci(command.to_string()));
        }
        if let Some(depth) = s.strip_prefix("search:") {
            return match depth.parse::<u32>() {
                Ok(d) if (1..=64).contains(&d) => Ok(Spec::Search(d)),
                _ => Err(InputError(format!(
                    "player '{s}': the depth must be a number from 1 to 64"
                ))),
            };
        }
        if s == "random" {
            return Ok(Spec::Random);
        }
        if let Some(strategy) = Strategy::from_name(s) {
            return Ok(Spec::Strategy(strategy));
        }
        let strategies: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
        Err(InputError(format!(
            "unknown player '{s}': expected random, search:DEPTH, {} or uci:COMMAND",
            strategies.join(", ")
        )))
    }
}

/// What a player answers.
enum Choice {
    Move(Move),
    /// The player loses the game: why.
    Forfeit(String),
}

/// A player of a match.
trait Player {
    /// Before each game.
    ///
    /// # Errors
    /// The player cannot play (an engine that does not start).
    fn new_game(&mut self) -> anyhow::Result<()> {
        Ok(())
    }

    /// A move in `game` (not over).
    ///
    /// # Errors
    /// The player cannot go on (a damaged table, a position the tables lack).
    fn choose(&mut self, game: &Game, rng: &mut Rng) -> anyhow::Result<Choice>;
}

struct RandomPlayer;

impl Player for RandomPlayer {
    fn choose(&mut self, game: &Game, rng: &mut Rng) -> anyhow::Result<Choice> {
        let moves = game.position().legal_moves();
        let m = rng
            .pick(&moves)
            .context("no legal move in a game not over")?;
        Ok(Choice::Move(m))
    }
}

/// The depth-limited search: every move scored by a search of `depth - 1` plies
/// after it (the evaluation for depth 1), random among the best.
struct SearchPlayer {
    depth: u32,
    searcher: Searcher<'static>,
}

impl Player for SearchPlayer {
    fn choose(&mut self, game: &Game, rng: &mut Rng) -> anyhow::Result<Choice> {
        let pos = game.position();
        let mut history = game.history();
        history.push(pos.hash());
        let limits = Limits {
            depth: Some(self.depth - 1),
            no_line: true,
            ..Limits::default()
        };
        let mut best: Vec<Move> = Vec::new();
        let mut best_score = i32::MIN;
        for &m in pos.legal_moves().iter() {
            let child = pos.play_unchecked(m);
            let score = if self.depth == 1 && child.end().is_none() {
                -evaluate(&child)
            } else {
                parent_score(self.searcher.search(&child, limits, &history)?.score)
            };
            if score > best_score {
                best_score = score;
                best.clear();
            }
            if score == best_score {
                best.push(m);
            }
        }
        let m = rng
            .pick(&best)
            .context("no legal move in a game not over")?;
        Ok(Choice::Move(m))
    }
}

/// A tablebase strategy: uniformly random among the moves it allows.
struct StrategyPlayer<'a> {
    strategy: Strategy,
    tb: &'a Tablebase,
}

impl Player for StrategyPlayer<'_> {
    fn choose(&mut self, game: &Game, rng: &mut Rng) -> anyhow::Result<Choice> {
        let pos = game.position();
        let moves = self
            .strategy
            .candidates(self.tb, pos, &game.history())?
            .with_context(|| {
                format!(
                    "{}: the tablebases do not hold {pos} or a position after it",
                    self.strategy
                )
            })?;
        let m = rng.pick(&moves).context("no value-keeping move")?;
        Ok(Choice::Move(m))
    }
}

/// An engine in a child process, spoken to through the engine protocol.
struct UciPlayer {
    command: String,
    options: Vec<(String, String)>,
    rules: Rules,
    movetime: Duration,
    timeout: Duration,
    engine: Option<Engine>,
}

/// A running engine.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start(command: &str) -> anyhow::Result<Engine> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {command}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start engine '{command}'"))?;
        let stdin = child.stdin.take().context("no engine input")?;
        let stdout = child.stdout.take().context("no engine output")?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Engine {
            child,
            stdin,
            lines,
        })
    }

    /// Send a line; `false` when the engine no longer reads.
    fn send(&mut self, line: &str) -> bool {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .is_ok()
    }

    /// The first line starting with `prefix` before `deadline`.
    fn wait_for(&mut self, prefix: &str, deadline: Instant) -> Option<String> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return Some(line),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl UciPlayer {
    /// The engine, started and set up if it is not running.
    fn engine(&mut self) -> anyhow::Result<&mut Engine> {
        if self.engine.is_none() {
            let mut e = Engine::start(&self.command)?;
            let deadline = Instant::now() + Duration::from_secs(10) + self.timeout;
            e.send("uci");
            e.wait_for("uciok", deadline).with_context(|| {
                format!("engine '{}' did not answer uci with uciok", self.command)
            })?;
            // The classic games by the option every such engine knows; house rules
            // by morris's own (an engine without it plays what it plays, and its
            // moves are judged by the match's rules).
            match self.rules.variant() {
                Some(Variant::Standard) => {}
                Some(Variant::NoFlying) => {
                    e.send("setoption name Variant value no-flying");
                }
                None => {
                    e.send(&format!("setoption name Rules value {}", self.rules));
                }
            }
            for (name, value) in &self.options {
                e.send(&format!("setoption name {name} value {value}"));
            }
            e.send("isready");
            e.wait_for("readyok", deadline)
                .with_context(|| format!("engine '{}' did not answer isready", self.command))?;
            self.engine = Some(e);
        }
        self.engine.as_mut().context("no engine")
    }
}

/// The protocol's `position` command for a game and tokens after it.
fn position_command(game: &Game, extra: &[String]) -> String {
    let start = game.start();
    let mut tokens: Vec<String> = game
        .moves()
        .iter()
        .flat_map(|&m| {
            let mut t = vec![m.without_capture().to_string()];
            t.extend(m.captures().map(|c| format!("x{c}")));
            t
        })
        .collect();
    tokens.extend(extra.iter().cloned());
    let origin = if *start == Position::start(start.rules()) {
        "startpos".to_string()
    } else {
        format!("fen {}", notation::setup_to_sanmill(&start.to_setup()))
    };
    if tokens.is_empty() {
        format!("position {origin}")
    } else {
        format!("position {origin} moves {}", tokens.join(" "))
    }
}

impl Player for UciPlayer {
    fn new_game(&mut self) -> anyhow::Result<()> {
        let e = self.engine()?;
        if !e.send("ucinewgame") {
            // Gone: started again for the game.
            self.engine = None;
            self.engine()?;
        }
        Ok(())
    }

    fn choose(&mut self, game: &Game, _rng: &mut Rng) -> anyhow::Result<Choice> {
        let pos = *game.position();
        let (movetime, timeout) = (self.movetime, self.timeout);
        let e = self.engine()?;
        // The move so far: its placement or slide, then the captures answered one
        // token at a time (two under per-mill captures), each asked for by a `go`.
        let mut base: Option<Move> = None;
        let mut taken: Vec<Point> = Vec::new();
        loop {
            let extra: Vec<String> = base
                .iter()
                .map(ToString::to_string)
                .chain(taken.iter().map(|c| format!("x{c}")))
                .collect();
            e.send(&position_command(game, &extra));
            e.send(&format!("go movetime {}", movetime.as_millis()));
            let deadline = Instant::now() + movetime + timeout;
            let Some(line) = e.wait_for("bestmove", deadline) else {
                // Its state is unknown now: the next game starts it again.
                self.engine = None;
                return Ok(Choice::Forfeit(format!(
                    "no move within {} ms",
                    (movetime + timeout).as_millis()
                )));
            };
            let token = line.split_whitespace().nth(1).unwrap_or("").to_string();
            match base {
                Some(h) => match token.strip_prefix('x').map(notation::parse_point) {
                    Some(Ok(c)) => taken.push(c),
                    _ => {
                        return Ok(Choice::Forfeit(format!(
                            "'{token}' is not the capture owed after {}",
                            with_taken(h, &taken)
                        )))
                    }
                },
                None => match notation::parse_move(&token) {
                    Ok(m) => {
                        base = Some(m.without_capture());
                        taken.extend(m.captures());
                    }
                    Err(_) => return Ok(Choice::Forfeit(format!("'{token}' is not a legal move"))),
                },
            }
            let h = base.context("a move was read")?;
            let m = with_taken(h, &taken);
            if taken.len() <= 2 && pos.is_legal(m) {
                return Ok(Choice::Move(m));
            }
            // Another capture is owed when a legal move makes this move and takes
            // more than these pieces.
            let owes = pos.legal_moves().iter().any(|l| {
                l.without_capture() == h
                    && l.captures().count() > taken.len()
                    && taken.iter().all(|c| l.captures().any(|x| x == *c))
            });
            if !owes {
                return Ok(Choice::Forfeit(format!("illegal move '{m}'")));
            }
        }
    }
}

/// `base` taking the pieces of `taken` (the first two; a legal move takes at most two).
fn with_taken(base: Move, taken: &[Point]) -> Move {
    match *taken {
        [] => base,
        [a] => base.with_capture(a),
        [a, b, ..] => base.with_captures(a, b),
    }
}

/// How a game ended.
#[derive(Clone, Debug)]
enum Ending {
    /// By the rules.
    Rules(GameEnd),
    /// A player forfeited: the loser and why.
    Forfeit(Color, String),
    /// Adjudicated a draw at the ply limit.
    MaxPlies,
}

impl Ending {
    fn winner(&self) -> Option<Color> {
        match self {
            Ending::Rules(end) => end.winner(),
            Ending::Forfeit(loser, _) => Some(loser.opponent()),
            Ending::MaxPlies => None,
        }
    }

    fn score(&self) -> &'static str {
        match self.winner() {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }

    fn reason(&self, max_plies: u32) -> String {
        match self {
            Ending::Rules(end) => end.to_string(),
            Ending::Forfeit(loser, why) => {
                format!("{} wins: {loser} forfeits ({why})", loser.opponent())
            }
            Ending::MaxPlies => format!("draw adjudicated at {max_plies} plies"),
        }
    }
}

/// Play one game from `start`, `players[0]` White.
fn play_game(
    players: [&mut dyn Player; 2],
    start: &Game,
    max_plies: u32,
    rng: &mut Rng,
) -> anyhow::Result<(Game, Ending)> {
    let mut game = start.clone();
    let [white, black] = players;
    white.new_game()?;
    black.new_game()?;
    let mut plies = 0;
    loop {
        if let Some(end) = game.end() {
            return Ok((game, Ending::Rules(end)));
        }
        if plies >= max_plies {
            return Ok((game, Ending::MaxPlies));
        }
        let side = game.position().side_to_move();
        let player: &mut dyn Player = if side == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        match player.choose(&game, rng)? {
            Choice::Move(m) => game
                .play(m)
                .with_context(|| format!("the {side} player chose the illegal move {m}"))?,
            Choice::Forfeit(why) => return Ok((game, Ending::Forfeit(side, why))),
        }
        plies += 1;
    }
}

/// Counts for one player.
#[derive(Default, Clone, Copy)]
struct Tally {
    wins: u32,
    draws: u32,
    max_ply_draws: u32,
    losses: u32,
}

impl Tally {
    fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The score (1 a win, 1/2 a draw) a game, and its 95% interval: Wilson's score
    /// interval of the proportion, which stays honest near 0% and 100% (where the
    /// normal approximation shrinks to nothing).
    fn score(&self) -> (f64, f64, f64) {
        let n = f64::from(self.games().max(1));
        let p = (f64::from(self.wins) + f64::from(self.draws) / 2.0) / n;
        let z: f64 = 1.96;
        let z2 = z * z;
        let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
        (p, (centre - half).max(0.0), (centre + half).min(1.0))
    }

    fn line(&self, name: &str) -> String {
        let (mean, low, high) = self.score();
        format!(
            "{name}: {} wins, {} draws ({} at the ply limit), {} losses; score {:.1}% (95%: {:.1}% to {:.1}%)",
            self.wins,
            self.draws,
            self.max_ply_draws,
            self.losses,
            100.0 * mean,
            100.0 * low,
            100.0 * high
        )
    }
}

/// The start games: from --openings, or the one of --fen/--moves.
fn openings(args: &Args) -> anyhow::Result<Vec<Game>> {
    let Some(path) = &args.openings else {
        return Ok(vec![args.position.game()?]);
    };
    if !args.position.is_default() {
        return Err(InputError("--openings and --fen/--moves exclude each other".into()).into());
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError(format!("cannot read --openings {}: {e}", path.display())))?;
    let variant = args.position.rules()?;
    let mut games = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let game = if line.contains('/') {
            notation::parse_position(line, variant).map(Game::new)
        } else {
            notation::parse_game(&Position::start(variant), line)
        };
        let game = game.map_err(|e| InputError(format!("{}:{}: {e}", path.display(), n + 1)))?;
        if let Some(end) = game.end() {
            return Err(InputError(format!(
                "{}:{}: the game is already over ({end})",
                path.display(),
                n + 1
            ))
            .into());
        }
        games.push(game);
    }
    if games.is_empty() {
        return Err(InputError(format!("--openings {}: no position in it", path.display())).into());
    }
    Ok(games)
}

/// Run the command.
///
/// # Errors
/// Bad players or positions, missing tables for a tablebase player, an engine that
/// does not start, a file that cannot be written.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let specs = [Spec::parse(&args.player_a)?, Spec::parse(&args.player_b)?];
    let mut options = Vec::new();
    for o in &args.options {
        match o.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                options.push((name.trim().to_string(), value.trim().to_string()));
            }
            _ => return Err(InputError(format!("--option '{o}' is not NAME=VALUE")).into()),
        }
    }
    let starts = openings(args)?;
    if let Some(end) = starts[0].end() {
        return Err(InputError(format!("the game is already over ({end})")).into());
    }
    let needs_tables = specs.iter().any(|s| matches!(s, Spec::Strategy(_)));
    let tb = if needs_tables {
        args.tb.open()?
    } else {
        Tablebase::default()
    };
    if needs_tables {
        for start in &starts {
            let pos = start.position();
            if tb.value(pos)?.is_none() {
                return Err(InputError(format!(
                    "a tablebase player needs the tables of {pos} ({} sector {}), not in {} (see `morris probe` and `morris generate`)",
                    pos.rules(),
                    Tablebase::sector_id_of(pos).map_or("none".to_string(), |s| s.to_string()),
                    args.tb.path().display()
                ))
                .into());
            }
        }
    }
    let rules = args.position.rules()?;
    let mut players: Vec<Box<dyn Player + '_>> = Vec::new();
    for spec in &specs {
        players.push(match spec {
            Spec::Random => Box::new(RandomPlayer),
            Spec::Search(depth) => Box::new(SearchPlayer {
                depth: *depth,
                searcher: Searcher::new(None, 16)?,
            }),
            Spec::Strategy(strategy) => Box::new(StrategyPlayer {
                strategy: *strategy,
                tb: &tb,
            }),
            Spec::Uci(command) => Box::new(UciPlayer {
                command: command.clone(),
                options: options.clone(),
                rules,
                movetime: Duration::from_millis(args.movetime),
                timeout: Duration::from_millis(args.timeout),
                engine: None,
            }),
        });
    }
    let mut save = match &args.save {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        )),
        None => None,
    };
    let names = [args.player_a.as_str(), args.player_b.as_str()];
    let mut rng = Rng::new(args.seed);
    let mut tally = Tally::default();
    let bar = crate::progress::games(u64::from(args.games));
    for g in 0..args.games {
        let start = &starts[(g as usize / 2) % starts.len()];
        let a_white = g % 2 == 0;
        let (first, second) = players.split_at_mut(1);
        let (a, b) = (&mut *first[0], &mut *second[0]);
        let colours: [&mut dyn Player; 2] = if a_white { [a, b] } else { [b, a] };
        let (game, result) = play_game(colours, start, args.max_plies, &mut rng)?;
        let a_colour = if a_white { Color::White } else { Color::Black };
        match result.winner() {
            Some(c) if c == a_colour => tally.wins += 1,
            Some(_) => tally.losses += 1,
            None => {
                tally.draws += 1;
                if matches!(result, Ending::MaxPlies) {
                    tally.max_ply_draws += 1;
                }
            }
        }
        let (white, black) = if a_white {
            (names[0], names[1])
        } else {
            (names[1], names[0])
        };
        let moves: Vec<String> = game.moves().iter().map(ToString::to_string).collect();
        bar.suspend(|| {
            outln!(
                "game {}: {white} (white) vs {black} (black): {} {}, {}",
                g + 1,
                result.score(),
                result.reason(args.max_plies),
                crate::tb::plies(moves.len() as u64)
            );
            if args.verbose {
                outln!("  moves: {}", moves.join(" "));
            }
        });
        if let Some(out) = &mut save {
            let mut line = format!(
                "{}\t{} {}",
                moves.join(" "),
                result.score(),
                result.reason(args.max_plies)
            );
            if *start.start() != Position::start(rules) || !start.moves().is_empty() {
                line.push('\t');
                line.push_str(&start.start().to_string());
            }
            writeln!(out, "{line}").context("cannot write --save")?;
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    if let Some(mut out) = save {
        out.flush().context("cannot write --save")?;
    }
    let b = Tally {
        wins: tally.losses,
        losses: tally.wins,
        ..tally
    };
    outln!("{}", tally.line(&format!("A {}", names[0])));
    outln!("{}", b.line(&format!("B {}", names[1])));
    outln!(
        "score: {} wins, {} draws, {} losses",
        tally.wins,
        tally.draws,
        tally.losses
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_parse() {
        assert_eq!(Spec::parse("random").unwrap(), Spec::Random);
        assert_eq!(Spec::parse("search:3").unwrap(), Spec::Search(3));
        assert_eq!(
            Spec::parse("perfect").unwrap(),
            Spec::Strategy(Strategy::Perfect)
        );
        assert_eq!(
            Spec::parse("uci:morris uci").unwrap(),
            Spec::Uci("morris uci".into())
        );
        for bad in ["", "search:0", "search:x", "uci:", "uci: ", "strong"] {
            assert!(Spec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_interval_narrows_with_games_and_stays_open_at_the_ends() {
        let t = |wins, draws, losses| Tally {
            wins,
            draws,
            max_ply_draws: 0,
            losses,
        };
        // Ten wins of ten: the score is 100%, but ten games cannot rule out 70%.
        let (m, low, high) = t(10, 0, 0).score();
        assert_eq!((m, high), (1.0, 1.0));
        assert!((0.69..0.73).contains(&low), "{low}");
        let (m, low, high) = t(5, 0, 5).score();
        assert!((m - 0.5).abs() < 1e-12 && (0.5 - low - (high - 0.5)).abs() < 1e-12);
        let (_, low100, high100) = t(50, 0, 50).score();
        assert!(high100 - low100 < high - low);
        let (m, low, _) = t(0, 4, 0).score();
        assert!(m == 0.5 && low < 0.5);
    }
}
