//! Rule sets: the house rules of the family as data.
//!
//! A [`Rules`] value says how many pieces each side has, whether three pieces with an
//! empty hand fly, how many pieces a move that closes two mills takes, and which
//! pieces a mill may take. Every [`crate::Position`] carries its rules, so move
//! generation cannot mix two rule sets. The two classic games of `RULES.md` are the
//! presets [`Rules::STANDARD`] and [`Rules::NO_FLYING`], named by [`Variant`]; every
//! other combination is a house rule, written as a preset followed by `,key=value`
//! switches (`standard,captures=per-mill`, `no-flying,protection=none,pieces=6`).
//!
//! Boards: the rule set also names its board ([`Board`]: nine, six or twelve, see
//! [`crate::geometry`]); the presets `six-mens` and `twelve-mens` play on the other two.

use crate::geometry::{Board, Geometry};
use std::fmt;

/// The fewest pieces a side may start with: fewer could never form a mill that
/// matters, and two on the board with an empty hand is already a loss.
pub const MIN_PIECES: u8 = 3;
/// The most pieces a side may start with (Twelve Men's Morris).
pub const MAX_PIECES: u8 = 12;

/// How many pieces a move takes that closes two mills at once.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Captures {
    /// One piece, however many mills the move closes (RULES.md).
    One,
    /// One piece per mill closed: a move closing two mills takes two, one after the
    /// other, each under the protection rule as it stands after the first (fewer if
    /// the opponent runs out of pieces it may take).
    PerMill,
}

/// Which opponent pieces a mill may take.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Protection {
    /// A piece outside the opponent's mills; any piece when all stand in mills
    /// (RULES.md).
    Standard,
    /// Any piece, in a mill or not.
    None,
    /// Never a piece in a mill: when every opponent piece stands in a mill the
    /// capture is forfeited and the move simply ends.
    Full,
}

impl Captures {
    /// The switch's value as the rule spec writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Captures::One => "one",
            Captures::PerMill => "per-mill",
        }
    }
}

impl Protection {
    /// The switch's value as the rule spec writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Protection::Standard => "standard",
            Protection::None => "none",
            Protection::Full => "full",
        }
    }
}

/// A rule set: the board, pieces a side, flying, captures and protection.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Rules {
    board: Board,
    pieces: u8,
    flying: bool,
    captures: Captures,
    protection: Protection,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::STANDARD
    }
}

impl From<Variant> for Rules {
    fn from(v: Variant) -> Rules {
        v.rules()
    }
}

/// The two games: with or without flying at three pieces.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub enum Variant {
    /// A player with three pieces and an empty hand may fly.
    #[default]
    Standard,
    /// Nobody ever flies.
    NoFlying,
}

impl Variant {
    /// Both variants.
    pub const ALL: [Variant; 2] = [Variant::Standard, Variant::NoFlying];

    /// The variant's number: 0 for Standard, 1 for No-flying, as file headers and
    /// tables indexed by variant use it.
    pub const fn index(self) -> usize {
        match self {
            Variant::Standard => 0,
            Variant::NoFlying => 1,
        }
    }

    /// The variant of number `n` ([`Variant::index`]), if there is one.
    pub const fn from_index(n: usize) -> Option<Variant> {
        match n {
            0 => Some(Variant::Standard),
            1 => Some(Variant::NoFlying),
            _ => None,
        }
    }

    /// `"standard"` or `"no-flying"`, as on the command line and in file names.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::NoFlying => "no-flying",
        }
    }

    /// Whether a player with exactly three pieces and an empty hand flies.
    pub const fn flying(self) -> bool {
        matches!(self, Variant::Standard)
    }

    /// The rule set of the game.
    pub const fn rules(self) -> Rules {
        match self {
            Variant::Standard => Rules::STANDARD,
            Variant::NoFlying => Rules::NO_FLYING,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Variant {
    type Err = String;
    fn from_str(s: &str) -> Result<Variant, String> {
        match s.to_ascii_lowercase().as_str() {
            "standard" => Ok(Variant::Standard),
            "no-flying" | "noflying" | "no_flying" => Ok(Variant::NoFlying),
            _ => Err(format!(
                "unknown variant '{s}' (expected 'standard' or 'no-flying')"
            )),
        }
    }
}

/// Why a rule spec could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("rules '{spec}': {why}")]
pub struct RulesError {
    /// The spec as given.
    pub spec: String,
    /// What is wrong with it.
    pub why: String,
}

impl Rules {
    /// The Standard game of RULES.md: nine pieces, flying at three, one capture a move,
    /// pieces in mills protected unless all are.
    pub const STANDARD: Rules = Rules {
        board: Board::Nine,
        pieces: 9,
        flying: true,
        captures: Captures::One,
        protection: Protection::Standard,
    };

    /// The No-flying game: as Standard, but nobody ever flies.
    pub const NO_FLYING: Rules = Rules {
        pieces: 9,
        flying: false,
        ..Rules::STANDARD
    };

    /// Six Men's Morris: the six board, six pieces a side, nobody flies.
    pub const SIX_MENS: Rules = Rules {
        board: Board::Six,
        pieces: 6,
        flying: false,
        ..Rules::STANDARD
    };

    /// Twelve Men's Morris: the twelve board (diagonals), twelve pieces a side, flying
    /// at three.
    pub const TWELVE_MENS: Rules = Rules {
        board: Board::Twelve,
        pieces: 12,
        ..Rules::STANDARD
    };

    /// The switches a spec may set, in the order the canonical spec writes them.
    pub const SWITCHES: [&'static str; 5] = ["board", "pieces", "flying", "captures", "protection"];

    /// The board the game is played on.
    #[inline]
    pub const fn board(self) -> Board {
        self.board
    }

    /// The tables of the board: points, connections, mills.
    #[inline]
    pub const fn geometry(self) -> &'static Geometry {
        self.board.geometry()
    }

    /// The preset a spec of these rules starts from: the preset of the board (and on
    /// the nine board, of the flying rule).
    pub const fn preset(self) -> (&'static str, Rules) {
        match self.board {
            Board::Nine if self.flying => ("standard", Rules::STANDARD),
            Board::Nine => ("no-flying", Rules::NO_FLYING),
            Board::Six => ("six-mens", Rules::SIX_MENS),
            Board::Twelve => ("twelve-mens", Rules::TWELVE_MENS),
        }
    }

    /// Pieces each side starts with, all in hand.
    pub const fn pieces(self) -> u8 {
        self.pieces
    }

    /// Whether a side with three pieces on the board and an empty hand flies.
    pub const fn flying(self) -> bool {
        self.flying
    }

    /// How many pieces a move closing two mills takes.
    pub const fn captures(self) -> Captures {
        self.captures
    }

    /// Which pieces a mill may take.
    pub const fn protection(self) -> Protection {
        self.protection
    }

    /// The classic game these rules are, if they are one of the two.
    pub const fn variant(self) -> Option<Variant> {
        match self {
            Rules {
                board: Board::Nine,
                pieces: 9,
                captures: Captures::One,
                protection: Protection::Standard,
                flying,
            } => Some(if flying {
                Variant::Standard
            } else {
                Variant::NoFlying
            }),
            _ => None,
        }
    }

    /// The same rules with `n` pieces a side.
    ///
    /// # Errors
    /// A message when `n` is outside [`MIN_PIECES`]..=[`MAX_PIECES`].
    pub fn with_pieces(mut self, n: u8) -> Result<Rules, String> {
        if !(MIN_PIECES..=MAX_PIECES).contains(&n) {
            return Err(format!(
                "pieces={n}: a side has {MIN_PIECES} to {MAX_PIECES} pieces"
            ));
        }
        self.pieces = n;
        Ok(self)
    }

    /// The same rules with flying on or off.
    pub const fn with_flying(mut self, flying: bool) -> Rules {
        self.flying = flying;
        self
    }

    /// The same rules with another capture count.
    pub const fn with_captures(mut self, captures: Captures) -> Rules {
        self.captures = captures;
        self
    }

    /// The same rules with another protection rule.
    pub const fn with_protection(mut self, protection: Protection) -> Rules {
        self.protection = protection;
        self
    }

    /// A number that tells every rule set apart, below 360: 0 for Standard and 1 for
    /// No-flying, as [`Variant::index`] numbers them; 120 numbers a board.
    pub const fn code(self) -> u16 {
        // Nine pieces first (0), then 3..=8 and 10..=12 (1..=9): 10 values.
        let pieces = match self.pieces {
            9 => 0,
            n if n < 9 => n - MIN_PIECES + 1,
            n => n - MIN_PIECES,
        };
        self.play_code() as u16 + 12 * (pieces as u16 + 10 * self.board.index() as u16)
    }

    /// The rules of play within a board, below 12: flying, captures, protection.
    const fn play_code(self) -> u8 {
        let (captures, protection) = self.switch_numbers();
        (!self.flying) as u8 + 2 * (captures + 2 * protection)
    }

    /// The captures switch (0 one, 1 per-mill) and the protection switch (0 standard,
    /// 1 none, 2 full) as numbers.
    const fn switch_numbers(self) -> (u8, u8) {
        let captures = match self.captures {
            Captures::One => 0,
            Captures::PerMill => 1,
        };
        let protection = match self.protection {
            Protection::Standard => 0,
            Protection::None => 1,
            Protection::Full => 2,
        };
        (captures, protection)
    }

    /// A short fingerprint of the rule set for file names and headers: the switches
    /// as letters and numbers, e.g. `n9f1c1p0` (nine pieces, flying, one capture,
    /// standard protection).
    /// On the other boards the board's name comes first: `six-n6f0c1p0`.
    pub fn fingerprint(self) -> String {
        let board = match self.board {
            Board::Nine => "",
            Board::Six => "six-",
            Board::Twelve => "twelve-",
        };
        format!("{board}n{}{}", self.pieces, self.play_fingerprint())
    }

    /// The rules of play as letters: `f1c1p0`.
    fn play_fingerprint(self) -> String {
        let (c, p) = self.switch_numbers();
        format!("f{}c{}p{p}", u8::from(self.flying), c + 1)
    }

    /// Number of distinct table games ([`Rules::tables`]): flying or not, both capture
    /// counts, the three protection rules, on each of the three boards.
    pub const TABLE_GAMES: usize = 36;

    /// The rules as tablebases know them. A table holds positions, and a position's
    /// value does not depend on how many pieces its game started with (only on the
    /// board, the hands and the rules of play), so every piece count shares the tables
    /// of the board's preset (nine pieces on the nine board, six and twelve on the
    /// others): `standard,pieces=5` reads the Standard files, `six-mens,pieces=5` the
    /// Six Men's Morris files.
    pub const fn tables(self) -> Rules {
        Rules {
            pieces: self.board.preset_pieces(),
            ..self
        }
    }

    /// The number of the table game, below [`Rules::TABLE_GAMES`]: 0 for Standard and 1
    /// for No-flying ([`Variant::index`]), as file headers store it; 12 numbers a board.
    pub const fn table_index(self) -> usize {
        self.play_code() as usize + 12 * self.board.index()
    }

    /// The table game of number `n` ([`Rules::table_index`]), if there is one.
    pub fn from_table_index(n: usize) -> Option<Rules> {
        Rules::all().find(|r| r.pieces == r.board.preset_pieces() && r.table_index() == n)
    }

    /// The name of the table game in file names: `standard` and `no-flying` for the
    /// two classic games (the names their files always had), else the fingerprint of
    /// [`Rules::tables`], e.g. `n9f1c2p0` for `standard,captures=per-mill`. On the
    /// other boards, the preset's name where the rules of play are the preset's
    /// (`six-mens`, `twelve-mens`), else it followed by the rules of play:
    /// `six-mens-f1c1p0` for `six-mens,flying=yes`.
    pub fn table_name(self) -> String {
        let (preset, base) = self.preset();
        match self.board {
            Board::Nine => match self.tables().variant() {
                Some(v) => v.name().to_string(),
                None => self.tables().fingerprint(),
            },
            _ if self.play_code() == base.play_code() => preset.to_string(),
            _ => format!("{preset}-{}", self.play_fingerprint()),
        }
    }

    /// Every table game, in the order of [`Rules::table_index`]: Standard, No-flying,
    /// then the house rules.
    pub fn table_games() -> impl Iterator<Item = Rules> {
        (0..Rules::TABLE_GAMES).filter_map(Rules::from_table_index)
    }

    /// The table game whose file names start with `name` ([`Rules::table_name`]).
    pub fn from_table_name(name: &str) -> Option<Rules> {
        Rules::table_games().find(|r| r.table_name() == name)
    }

    /// Every rule set: on each board, pieces 3 to 12, flying or not, both capture
    /// counts (one only on the twelve board, see [`Rules::parse`]), the three
    /// protection rules (300 of them: 120 on the nine board).
    pub fn all() -> impl Iterator<Item = Rules> {
        Board::ALL.into_iter().flat_map(Rules::all_on)
    }

    /// Every rule set on one board.
    pub fn all_on(board: Board) -> impl Iterator<Item = Rules> {
        (MIN_PIECES..=MAX_PIECES).flat_map(move |pieces| {
            [true, false].into_iter().flat_map(move |flying| {
                [Captures::One, Captures::PerMill]
                    .into_iter()
                    .filter(move |&c| board != Board::Twelve || c == Captures::One)
                    .flat_map(move |captures| {
                        [Protection::Standard, Protection::None, Protection::Full]
                            .into_iter()
                            .map(move |protection| Rules {
                                board,
                                pieces,
                                flying,
                                captures,
                                protection,
                            })
                    })
            })
        })
    }

    /// Read a rule spec: a preset (`standard`, `no-flying`, `six-mens`, `twelve-mens`),
    /// then any `,key=value` switches, later ones overriding earlier ones:
    /// `board=nine|six|twelve`, `pieces=3..12`, `flying=yes|no`,
    /// `captures=one|per-mill`, `protection=standard|none|full`. `captures=per-mill`
    /// is refused on the twelve board: a move there can close three mills at once, and
    /// the family's rule pages say nothing of taking three.
    ///
    /// # Errors
    /// [`RulesError`] naming the preset, key or value that is wrong.
    pub fn parse(spec: &str) -> Result<Rules, RulesError> {
        let err = |why: String| RulesError {
            spec: spec.to_string(),
            why,
        };
        let mut parts = spec.split(',').map(str::trim);
        let preset = parts.next().unwrap_or("").to_ascii_lowercase();
        let mut rules = match preset.as_str() {
            "standard" | "nine-mens" => Rules::STANDARD,
            "no-flying" | "noflying" | "no_flying" => Rules::NO_FLYING,
            "six-mens" | "six" => Rules::SIX_MENS,
            "twelve-mens" | "twelve" => Rules::TWELVE_MENS,
            "" => return Err(err(format!("no preset: start with {PRESETS}"))),
            other => {
                return Err(err(format!(
                    "unknown preset '{other}' (expected {PRESETS})"
                )))
            }
        };
        for part in parts {
            let Some((key, value)) = part.split_once('=') else {
                return Err(err(format!(
                    "'{part}' is not key=value (keys: {})",
                    Rules::SWITCHES.join(", ")
                )));
            };
            let (key, value) = (
                key.trim().to_ascii_lowercase(),
                value.trim().to_ascii_lowercase(),
            );
            let bad = |expected: &str| err(format!("{key}={value}: expected {expected}"));
            rules = match key.as_str() {
                "board" => match value.as_str() {
                    "nine" => rules.with_board(Board::Nine),
                    "six" => rules.with_board(Board::Six),
                    "twelve" => rules.with_board(Board::Twelve),
                    _ => return Err(bad("nine, six or twelve")),
                },
                "pieces" => {
                    let n = value
                        .parse::<u8>()
                        .map_err(|_| bad(&format!("a number from {MIN_PIECES} to {MAX_PIECES}")))?;
                    rules.with_pieces(n).map_err(err)?
                }
                "flying" => match value.as_str() {
                    "yes" | "true" | "on" => rules.with_flying(true),
                    "no" | "false" | "off" => rules.with_flying(false),
                    _ => return Err(bad("yes or no")),
                },
                "captures" => match value.as_str() {
                    "one" => rules.with_captures(Captures::One),
                    "per-mill" | "permill" | "per_mill" => rules.with_captures(Captures::PerMill),
                    _ => return Err(bad("one or per-mill")),
                },
                "protection" => match value.as_str() {
                    "standard" => rules.with_protection(Protection::Standard),
                    "none" => rules.with_protection(Protection::None),
                    "full" => rules.with_protection(Protection::Full),
                    _ => return Err(bad("standard, none or full")),
                },
                _ => {
                    return Err(err(format!(
                        "unknown switch '{key}' (keys: {})",
                        Rules::SWITCHES.join(", ")
                    )))
                }
            };
        }
        if rules.board == Board::Twelve && rules.captures == Captures::PerMill {
            return Err(err(
                "captures=per-mill is not offered on the twelve board: a move there can close three mills at once".into(),
            ));
        }
        Ok(rules)
    }

    /// The same rules on another board.
    pub const fn with_board(mut self, board: Board) -> Rules {
        self.board = board;
        self
    }
}

/// The presets, as error messages list them.
const PRESETS: &str = "standard, no-flying, six-mens or twelve-mens";

impl std::str::FromStr for Rules {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Rules, RulesError> {
        Rules::parse(s)
    }
}

impl fmt::Display for Rules {
    /// The canonical spec: the preset of the board (on the nine board, of the same
    /// flying rule), then the switches that differ from it, in the order of
    /// [`Rules::SWITCHES`]: `standard`, `no-flying,pieces=6`,
    /// `standard,captures=per-mill,protection=none`, `six-mens,flying=yes`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, base) = self.preset();
        f.write_str(name)?;
        if self.pieces != base.pieces {
            write!(f, ",pieces={}", self.pieces)?;
        }
        if self.flying != base.flying {
            f.write_str(if self.flying {
                ",flying=yes"
            } else {
                ",flying=no"
            })?;
        }
        if self.captures != base.captures {
            write!(f, ",captures={}", self.captures.name())?;
        }
        if self.protection != base.protection {
            write!(f, ",protection={}", self.protection.name())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_rule_set_round_trips_through_its_spec_and_has_its_own_code_and_fingerprint() {
        let all: Vec<Rules> = Rules::all().collect();
        assert_eq!(all.len(), 300);
        assert_eq!(Rules::all_on(Board::Nine).count(), 120);
        let mut codes = HashSet::new();
        let mut prints = HashSet::new();
        for r in &all {
            let spec = r.to_string();
            assert_eq!(Rules::parse(&spec), Ok(*r), "{spec}");
            assert!(r.code() < 360, "{spec}");
            assert!(codes.insert(r.code()), "code of {spec} taken");
            assert!(
                prints.insert(r.fingerprint()),
                "fingerprint of {spec} taken"
            );
        }
        assert_eq!(Rules::STANDARD.code(), Variant::Standard.index() as u16);
        assert_eq!(Rules::NO_FLYING.code(), Variant::NoFlying.index() as u16);
    }

    #[test]
    fn presets_and_switches_read_as_documented() {
        let p = |s: &str| Rules::parse(s).expect(s);
        assert_eq!(p("standard"), Rules::STANDARD);
        assert_eq!(p("No-Flying"), Rules::NO_FLYING);
        assert_eq!(p("standard,flying=no"), Rules::NO_FLYING);
        assert_eq!(p("no-flying, flying=yes"), Rules::STANDARD);
        assert_eq!(p("standard,board=nine,pieces=9"), Rules::STANDARD);
        let r = p("standard,captures=per-mill");
        assert_eq!(r.captures(), Captures::PerMill);
        assert_eq!(r.variant(), None);
        assert_eq!(r.to_string(), "standard,captures=per-mill");
        let r = p("no-flying,protection=none,pieces=6");
        assert_eq!(
            (r.pieces(), r.flying(), r.protection()),
            (6, false, Protection::None)
        );
        assert_eq!(r.to_string(), "no-flying,pieces=6,protection=none");
        assert_eq!(Rules::STANDARD.variant(), Some(Variant::Standard));
        assert_eq!(Rules::NO_FLYING.variant(), Some(Variant::NoFlying));
        assert_eq!(Rules::STANDARD.fingerprint(), "n9f1c1p0");
        let six = p("six-mens");
        assert_eq!(
            (six.board(), six.pieces(), six.flying()),
            (Board::Six, 6, false)
        );
        assert_eq!(six.to_string(), "six-mens");
        assert_eq!(p("six-mens,flying=yes").to_string(), "six-mens,flying=yes");
        assert_eq!(
            p("standard,board=six"),
            six.with_pieces(9).unwrap().with_flying(true)
        );
        assert_eq!(
            p("standard,board=six").to_string(),
            "six-mens,pieces=9,flying=yes"
        );
        let twelve = p("twelve-mens");
        assert_eq!(
            (twelve.board(), twelve.pieces(), twelve.flying()),
            (Board::Twelve, 12, true)
        );
        assert_eq!(twelve.fingerprint(), "twelve-n12f1c1p0");
        assert_eq!(twelve.variant(), None);
    }

    #[test]
    fn table_games_are_numbered_below_the_slots_and_named_as_the_files_always_were() {
        let games: Vec<Rules> = Rules::table_games().collect();
        // 12 a board, less the six of per-mill captures on the twelve board.
        assert_eq!(games.len(), Rules::TABLE_GAMES - 6);
        assert_eq!(Rules::from_table_index(Rules::TABLE_GAMES), None);
        assert_eq!(games[0], Rules::STANDARD);
        assert_eq!(games[1], Rules::NO_FLYING);
        for i in 0..Rules::TABLE_GAMES {
            if let Some(g) = Rules::from_table_index(i) {
                assert_eq!(g.table_index(), i);
                assert_eq!(Rules::from_table_name(&g.table_name()), Some(g));
            }
        }
        assert_eq!(Rules::STANDARD.table_name(), "standard");
        assert_eq!(Rules::NO_FLYING.table_name(), "no-flying");
        let per_mill = Rules::STANDARD.with_captures(Captures::PerMill);
        assert_eq!(per_mill.table_name(), "n9f1c2p0");
        // Every piece count shares the tables of its board's preset count.
        for r in Rules::all() {
            let preset = r.board().preset_pieces();
            assert_eq!(r.tables(), r.with_pieces(preset).expect("preset pieces"));
            assert!(r.table_index() < Rules::TABLE_GAMES);
        }
        let five = Rules::STANDARD.with_pieces(5).expect("five");
        assert_eq!(five.table_name(), "standard");
        assert_eq!(Rules::from_table_name("n5f1c1p0"), None);
        assert_eq!(Rules::SIX_MENS.table_name(), "six-mens");
        assert_eq!(
            Rules::SIX_MENS.with_flying(true).table_name(),
            "six-mens-f1c1p0"
        );
        assert_eq!(Rules::TWELVE_MENS.table_name(), "twelve-mens");
        assert_eq!(Rules::SIX_MENS.table_index(), 13);
        // Every table game has its own name and number.
        let names: HashSet<String> = games.iter().map(|g| g.table_name()).collect();
        assert_eq!(names.len(), games.len());
    }

    #[test]
    fn bad_specs_name_what_is_wrong() {
        let why = |s: &str| Rules::parse(s).unwrap_err().to_string();
        assert!(why("chess").contains("unknown preset 'chess'"));
        assert!(why("").contains("no preset"));
        assert!(why("standard,pieces=2").contains("3 to 12"));
        assert!(why("standard,pieces=x").contains("pieces=x"));
        assert!(why("standard,flying").contains("not key=value"));
        assert!(why("standard,speed=fast").contains("unknown switch 'speed'"));
        assert!(why("standard,captures=all").contains("one or per-mill"));
        assert!(why("standard,protection=some").contains("standard, none or full"));
        assert!(why("standard,board=ten").contains("nine, six or twelve"));
        assert!(why("twelve-mens,captures=per-mill").contains("three mills"));
        assert!(why("standard,board=twelve,captures=per-mill").contains("three mills"));
    }
}
