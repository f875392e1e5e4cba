//! `morris malom`: read Malom's perfect database (Gévay and Danner) and compare it
//! with our tables, position by position (`compare`), or print its entry for one
//! position (`probe`). The reader is `morris_tablebase::malom`.

use crate::args::{InputError, PositionArgs};
use crate::tb::TbDir;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use morris_engine::{notation, Bitboard, Board, Color, Position, Setup, Variant};
use morris_tablebase::malom::{MalomFile, MalomSector, MalomValue, SectorValues, SECVAL_NAME};
use morris_tablebase::{Sector, SectorId, Tablebase, Value, Wdl};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Read Malom's perfect database of the Standard game and compare it with ours.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  morris malom compare --malom /data/malom --tb /data/tb\n  morris malom compare --malom /data/malom --tb /data/tb --sector 4-3 --sector 3-3+6-5\n  morris malom probe --malom /data/malom --fen \"W.B/.W./.../B....W/.../.../B.. w 0 0\""
)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    Compare(CompareArgs),
    Probe(ProbeArgs),
}

/// Compare every position of every Malom sector file present with our tables: win,
/// draw or loss, and Malom's depth against our DTM. One line a sector; sectors we
/// have no table for are named and skipped.
#[derive(clap::Args)]
struct CompareArgs {
    /// Directory of Malom's files: sectors `std_W_B_WF_BF.sec2` and `std.secval`.
    #[arg(long, value_name = "DIR")]
    malom: PathBuf,

    #[command(flatten)]
    tb: TbDir,

    /// Only these sectors, named as ours (`4-3`, `3-3+6-5`) or as Malom's
    /// (`std_4_3_0_0`, `4_3_0_0`).
    #[arg(long, value_name = "SECTOR")]
    sector: Vec<String>,

    /// Example positions shown for each kind of difference.
    #[arg(long, value_name = "N", default_value_t = 3)]
    examples: usize,
}

/// Print Malom's entry for one position (Standard game).
#[derive(clap::Args)]
struct ProbeArgs {
    /// Directory of Malom's files: sectors `std_W_B_WF_BF.sec2` and `std.secval`.
    #[arg(long, value_name = "DIR")]
    malom: PathBuf,

    #[command(flatten)]
    position: PositionArgs,
}

/// Run the command.
///
/// # Errors
/// Bad arguments, a damaged file (named), or nothing to compare.
pub fn run(args: &Args) -> anyhow::Result<()> {
    match &args.command {
        Command::Compare(a) => compare(a),
        Command::Probe(a) => probe(a),
    }
}

/// The Malom sector a `--sector` argument names.
fn parse_sector(s: &str) -> Result<MalomSector, InputError> {
    let body = s.strip_prefix("std_").unwrap_or(s);
    let body = body.strip_suffix(".sec2").unwrap_or(body);
    if let Some(m) = MalomSector::from_file_name(&format!("std_{body}.sec2")) {
        return Ok(m);
    }
    let counts = |t: &str| -> Option<(u8, u8)> {
        let (a, b) = t.split_once('-')?;
        Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
    };
    let (board, hands) = body.split_once('+').unwrap_or((body, "0-0"));
    counts(board)
        .zip(counts(hands))
        .and_then(|((w, b), (wf, bf))| MalomSector::new(w, b, wf, bf))
        .ok_or_else(|| {
            InputError(format!(
                "--sector {s}: expected a sector such as 4-3, 3-3+6-5 or std_3_3_6_5"
            ))
        })
}

/// The Malom sector files of a directory, by sector.
///
/// # Errors
/// The directory cannot be read; a `.sec2` file whose name is no Standard sector.
fn malom_files(dir: &Path) -> anyhow::Result<BTreeMap<MalomSector, PathBuf>> {
    let mut files = BTreeMap::new();
    let entries = std::fs::read_dir(dir)
        .map_err(|e| InputError(format!("{}: cannot read the directory: {e}", dir.display())))?;
    for entry in entries {
        let entry = entry.map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.ends_with(".sec2") {
            continue;
        }
        let sector = MalomSector::from_file_name(name).ok_or_else(|| {
            anyhow::anyhow!(
                "{}: not a Malom Standard sector file (expected a name std_W_B_WF_BF.sec2)",
                entry.path().display()
            )
        })?;
        files.insert(sector, entry.path());
    }
    Ok(files)
}

/// Our position of a Malom entry: colours as a game gives them (White to move in a
/// movement sector, and in a placement sector whose hands are equal).
fn our_position(sector: SectorId, us: Bitboard, them: Bitboard) -> anyhow::Result<Position> {
    let setup = match sector {
        SectorId::Movement(_) => Setup {
            pieces: [us, them],
            hand: [0, 0],
            side_to_move: Color::White,
        },
        SectorId::Placement(p) => p.game_setup(us, them),
    };
    Ok(Position::from_setup(&setup, Variant::Standard)?)
}

/// Our value of a position: the game's end if it is over, else the table's.
fn our_value(tb: &Tablebase, pos: &Position) -> anyhow::Result<Value> {
    if let Some(end) = pos.end() {
        return Ok(Value::finished(pos, end));
    }
    tb.value(pos)?.ok_or_else(|| {
        anyhow::anyhow!(
            "our table has no value for {}",
            notation::setup_to_string(&pos.to_setup())
        )
    })
}

/// The comparison of one sector.
#[derive(Default)]
struct Tally {
    positions: u64,
    /// Counts by (ours, Malom's): win, draw, loss.
    matrix: [[u64; 3]; 3],
    /// Decided positions with the same result, by Malom's depth minus our DTM.
    depth_minus_dtm: BTreeMap<i64, u64>,
    /// Positions whose result differs: FEN, ours, Malom's.
    result_examples: Vec<(String, Value, MalomValue)>,
    /// Positions whose result agrees and whose distance differs.
    depth_examples: Vec<(String, Value, MalomValue)>,
    /// Draws in both, by what Malom's ultra-strong key says against our class.
    draws: DrawTally,
}

/// Malom's key of a draw names the value of the sector where it settles; our class is
/// the stay class of the pair where it settles. They agree when our stay class of
/// Malom's settling sector is our class.
#[derive(Default)]
struct DrawTally {
    /// Our stay class of Malom's settling sector is our class: counts by that sector.
    agree: BTreeMap<String, u64>,
    /// It is not: counts by (Malom's settling sector, its stay class, our class).
    differ: BTreeMap<(String, i8, i8), u64>,
    /// Examples of differences: FEN, Malom's settling sector, our class.
    examples: Vec<(String, String, i8)>,
    /// Draws we have no class for (no class file of the sector).
    no_class: u64,
    /// Draws whose Malom value names no movement sector we have a class file of:
    /// counts by what it names.
    not_comparable: BTreeMap<String, u64>,
}

impl DrawTally {
    fn merge(&mut self, t: &DrawTally) {
        for (k, &v) in &t.agree {
            *self.agree.entry(k.clone()).or_default() += v;
        }
        for (k, &v) in &t.differ {
            *self.differ.entry(k.clone()).or_default() += v;
        }
        self.no_class += t.no_class;
        for (k, &v) in &t.not_comparable {
            *self.not_comparable.entry(k.clone()).or_default() += v;
        }
    }

    fn differ(&self) -> u64 {
        self.differ.values().sum()
    }

    fn not_comparable(&self) -> u64 {
        self.not_comparable.values().sum()
    }

    fn agree(&self) -> u64 {
        self.agree.values().sum()
    }

    fn compared(&self) -> u64 {
        self.agree() + self.differ()
    }
}

/// Where Malom's draw settles: our name of the sector and our stay class of it, or
/// what Malom's value names when it is no movement sector with a class file here.
type Settles = Result<(String, i8), String>;

/// Where Malom's value of a draw says the game settles, as our stay class of that
/// sector for the side to move: `Ok((sector, stay))`, or `Err(what it names)` when it
/// names no movement sector with a class file here. A value of zero is a sector of
/// equal material (several share it), whose stay class is 0 by definition.
fn malom_settles(tb: &Tablebase, values: &SectorValues, sector_value: i16) -> Settles {
    if sector_value == 0 {
        return Ok(("equal material".into(), 0));
    }
    let Some(m) = values.sector_of(sector_value) else {
        return Err(format!("value {sector_value}, no sector's"));
    };
    match m.ours() {
        Some(SectorId::Movement(s)) => tb
            .sector_stay_class(Variant::Standard, s)
            .map(|stay| (s.to_string(), stay))
            .ok_or_else(|| format!("{s} (no class file here)")),
        Some(SectorId::Placement(p)) => Err(format!("placement sector {p}")),
        None => Err(format!("{m}")),
    }
}

fn wdl_index(w: Wdl) -> usize {
    match w {
        Wdl::Win => 0,
        Wdl::Draw => 1,
        Wdl::Loss => 2,
    }
}

const WDL_NAMES: [&str; 3] = ["win", "draw", "loss"];

impl Tally {
    /// Count one position: our value (and, for a draw, our class, `None` without a
    /// class file) against Malom's value (for a draw, where it settles, as
    /// [`malom_settles`] gives it).
    fn add(
        &mut self,
        pos: &Position,
        ours: (Value, Option<i8>),
        malom: (MalomValue, Option<Settles>),
        examples: usize,
    ) {
        let ((ours, class), (malom, settles)) = (ours, malom);
        self.positions += 1;
        let (o, m) = (wdl_index(ours.wdl()), wdl_index(malom.wdl()));
        self.matrix[o][m] += 1;
        let fen = || notation::setup_to_string(&pos.to_setup());
        if o != m {
            if self.result_examples.len() < examples {
                self.result_examples.push((fen(), ours, malom));
            }
            return;
        }
        if let Some(settles) = settles {
            let d = &mut self.draws;
            match (class, settles) {
                (None, _) => d.no_class += 1,
                (Some(_), Err(what)) => *d.not_comparable.entry(what).or_default() += 1,
                (Some(c), Ok((sector, stay))) if c == stay => {
                    *d.agree.entry(sector).or_default() += 1;
                }
                (Some(c), Ok((sector, stay))) => {
                    if d.examples.len() < examples {
                        d.examples
                            .push((fen(), format!("{sector} (class {stay:+})"), c));
                    }
                    *d.differ.entry((sector, stay, c)).or_default() += 1;
                }
            }
        }
        if let (Some(dtm), Some(depth)) = (ours.dtm(), malom.depth()) {
            let diff = i64::from(depth) - i64::from(dtm);
            *self.depth_minus_dtm.entry(diff).or_default() += 1;
            if diff != 0 && self.depth_examples.len() < examples {
                self.depth_examples.push((fen(), ours, malom));
            }
        }
    }

    fn agree(&self) -> u64 {
        (0..3).map(|i| self.matrix[i][i]).sum()
    }

    fn decided_equal(&self) -> u64 {
        self.depth_minus_dtm.get(&0).copied().unwrap_or(0)
    }

    fn decided(&self) -> u64 {
        self.depth_minus_dtm.values().sum()
    }
}

fn compare(args: &CompareArgs) -> anyhow::Result<()> {
    let values = SectorValues::open(&args.malom.join(SECVAL_NAME))?;
    let files = malom_files(&args.malom)?;
    let wanted: Vec<MalomSector> = args
        .sector
        .iter()
        .map(|s| parse_sector(s))
        .collect::<Result<_, _>>()?;
    for w in &wanted {
        if !files.contains_key(w) {
            return Err(InputError(format!(
                "--sector {}: no file {} in {}",
                w.ours().map_or_else(|| w.to_string(), |s| s.to_string()),
                w.file_name(),
                args.malom.display()
            ))
            .into());
        }
    }
    if files.is_empty() {
        return Err(InputError(format!(
            "{}: no Malom sector file (std_W_B_WF_BF.sec2)",
            args.malom.display()
        ))
        .into());
    }
    let tb = args.tb.open()?;
    let tb_dir = args.tb.path();
    let mut total = Tally::default();
    let mut compared = 0;
    let mut skipped = Vec::new();
    for (&sector, path) in &files {
        if !wanted.is_empty() && !wanted.contains(&sector) {
            continue;
        }
        let name = sector.file_name();
        let Some(ours) = sector.ours() else {
            outln!("{name}: skipped, our tables have no such sector");
            skipped.push(name);
            continue;
        };
        if !tb.contains(Variant::Standard, ours) {
            outln!("{ours} ({name}): skipped, no table in {}", tb_dir.display());
            skipped.push(format!("{ours}"));
            continue;
        }
        let file = MalomFile::open(path, &values)?;
        let tally = compare_sector(&tb, &values, &file, ours, args.examples)?;
        report(ours, &name, &tally);
        compared += 1;
        merge(&mut total, &tally);
    }
    if compared == 0 {
        anyhow::bail!(
            "no sector compared: our tables in {} hold none of the Malom sectors in {}",
            tb_dir.display(),
            args.malom.display()
        );
    }
    let d = &total.draws;
    outln!(
        "total: {compared} sectors, {} positions: {} agree, {} differ; of {} decided alike, depth = DTM for {}; of {} draws alike with classes in both, our stay class of Malom's settling sector = our class for {}{}",
        total.positions,
        total.agree(),
        total.positions - total.agree(),
        total.decided(),
        total.decided_equal(),
        d.compared(),
        d.agree(),
        if skipped.is_empty() {
            String::new()
        } else {
            format!("; skipped (no table): {}", skipped.join(", "))
        }
    );
    let sectors = ranked_sectors(&tb, &values);
    report_class_kinds(&total.draws, &sectors);
    report_ranking(&sectors);
    Ok(())
}

fn merge(total: &mut Tally, t: &Tally) {
    total.positions += t.positions;
    for i in 0..3 {
        for j in 0..3 {
            total.matrix[i][j] += t.matrix[i][j];
        }
    }
    for (&k, &v) in &t.depth_minus_dtm {
        *total.depth_minus_dtm.entry(k).or_default() += v;
    }
    total.draws.merge(&t.draws);
}

fn compare_sector(
    tb: &Tablebase,
    values: &SectorValues,
    file: &MalomFile,
    ours: SectorId,
    examples: usize,
) -> anyhow::Result<Tally> {
    let bar = ProgressBar::new(file.len());
    bar.set_draw_target(ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:12} [{bar:30}] {human_pos}/{human_len} entries, ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(ours.to_string());
    let mut tally = Tally::default();
    for h in 0..file.len() {
        if h % 4096 == 0 {
            bar.set_position(h);
        }
        let Some(entry) = file.position(h)? else {
            continue;
        };
        let pos = our_position(ours, entry.us, entry.them)?;
        let value = our_value(tb, &pos)?;
        let class = if value.wdl() == Wdl::Draw && pos.end().is_none() {
            tb.class(&pos)?.map(|c| c.class)
        } else {
            None
        };
        let settles = match entry.value {
            MalomValue::Draw { sector_value } => Some(malom_settles(tb, values, sector_value)),
            _ => None,
        };
        tally.add(&pos, (value, class), (entry.value, settles), examples);
    }
    bar.finish_and_clear();
    let size = ours.size(Board::Nine);
    if tally.positions != size {
        anyhow::bail!(
            "{}: {} canonical positions, our sector {ours} has {size}: the two do not number the same positions",
            file.path().display(),
            tally.positions
        );
    }
    Ok(tally)
}

fn report(ours: SectorId, name: &str, t: &Tally) {
    let mut differ = Vec::new();
    for (o, row) in t.matrix.iter().enumerate() {
        for (m, &n) in row.iter().enumerate() {
            if o != m && n > 0 {
                differ.push(format!(
                    "ours {} / Malom {}: {n}",
                    WDL_NAMES[o], WDL_NAMES[m]
                ));
            }
        }
    }
    let wdl = format!(
        "{} wins, {} draws, {} losses",
        t.matrix[0][0], t.matrix[1][1], t.matrix[2][2]
    );
    outln!(
        "{ours} ({name}): {} positions, {} agree ({wdl}), {} differ{}; depth = DTM for {} of {} decided",
        t.positions,
        t.agree(),
        t.positions - t.agree(),
        if differ.is_empty() {
            String::new()
        } else {
            format!(" ({})", differ.join(", "))
        },
        t.decided_equal(),
        t.decided()
    );
    if t.decided_equal() != t.decided() {
        let buckets: Vec<String> = t
            .depth_minus_dtm
            .iter()
            .map(|(d, n)| format!("{d:+}: {n}"))
            .collect();
        outln!("  Malom depth - our DTM: {}", buckets.join(", "));
    }
    for (fen, o, m) in &t.result_examples {
        outln!("  result differs: \"{fen}\" ours {o}, Malom {m}");
    }
    for (fen, o, m) in &t.depth_examples {
        outln!("  distance differs: \"{fen}\" ours {o}, Malom {m}");
    }
    report_draws(&t.draws);
}

/// The line of the draws: Malom's ultra-strong keys against our classes.
fn report_draws(d: &DrawTally) {
    if d.compared() + d.no_class + d.not_comparable() == 0 {
        return;
    }
    let by_sector: Vec<String> = d.agree.iter().map(|(s, n)| format!("{s}: {n}")).collect();
    let mut parts = vec![format!(
        "our stay class of Malom's settling sector = our class for {} of {} draws compared{}",
        d.agree(),
        d.compared(),
        if by_sector.is_empty() {
            String::new()
        } else {
            format!(" (settling in {})", by_sector.join(", "))
        }
    )];
    if d.no_class > 0 {
        parts.push(format!("{} without our class file", d.no_class));
    }
    for (what, n) in &d.not_comparable {
        parts.push(format!("{n} where Malom names {what}"));
    }
    outln!("  draws: {}", parts.join("; "));
    if !d.differ.is_empty() {
        let mut kinds: Vec<_> = d.differ.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let shown: Vec<String> = kinds
            .iter()
            .take(8)
            .map(|((sector, stay, c), n)| {
                format!("Malom settles in {sector} (class {stay:+}), ours class {c:+}: {n}")
            })
            .collect();
        let more = kinds.len().saturating_sub(shown.len());
        outln!(
            "  classes differ: {}{}",
            shown.join("; "),
            if more > 0 {
                format!("; {more} more kinds")
            } else {
                String::new()
            }
        );
    }
    for (fen, malom, c) in &d.examples {
        outln!("  class differs: \"{fen}\" ours class {c:+}, Malom settles in {malom}");
    }
}

/// How two rankings of the same sectors order their pairs.
#[derive(Debug, PartialEq, Eq)]
struct Order {
    alike: u64,
    opposite: u64,
    tied: u64,
    /// The first five pairs ordered the other way.
    examples: Vec<String>,
}

/// The pairs of `sectors` (each with Malom's value and our stay class) that the two
/// order alike, the other way, or tie in one.
fn order(sectors: &[(Sector, i16, i8)]) -> Order {
    let (mut alike, mut opposite, mut tied) = (0u64, 0u64, 0u64);
    let mut examples = Vec::new();
    for (i, a) in sectors.iter().enumerate() {
        for b in &sectors[i + 1..] {
            // In i16: two classes of -100 to 100 differ by up to 200.
            let (m, o) = (
                (a.1 - b.1).signum(),
                (i16::from(a.2) - i16::from(b.2)).signum(),
            );
            if m == 0 || o == 0 {
                tied += 1;
            } else if m == o {
                alike += 1;
            } else {
                opposite += 1;
                if examples.len() < 5 {
                    examples.push(format!(
                        "{} (Malom {}, ours {:+}) and {} (Malom {}, ours {:+})",
                        a.0, a.1, a.2, b.0, b.1, b.2
                    ));
                }
            }
        }
    }
    Order {
        alike,
        opposite,
        tied,
        examples,
    }
}

/// Whether the two rankings order the sectors `a` and `b` (Malom's value, our stay
/// class) the other way.
fn ranked_apart(a: &(Sector, i16, i8), b: &(Sector, i16, i8)) -> bool {
    let m = (a.1 - b.1).signum();
    let o = (i16::from(a.2) - i16::from(b.2)).signum();
    m * o < 0
}

/// Every kind of class difference over all the sectors compared: Malom's settling
/// sector against our class, and the sectors that have our class as their stay class.
/// A kind is marked when the two rankings order Malom's settling sector and one of
/// those the other way: the difference of the rankings explains it at once. The
/// others can still follow from it a few choices away, where one side's preference
/// between two such sectors changes which moves its opponent is left with.
fn report_class_kinds(d: &DrawTally, sectors: &[(Sector, i16, i8)]) {
    if d.differ.is_empty() {
        return;
    }
    let mut kinds: Vec<_> = d.differ.iter().collect();
    kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let named = |name: &str| sectors.iter().find(|s| s.0.to_string() == name);
    let mut apart = 0;
    outln!("class differences over all sectors (Malom's settling sector against our class; * where the two rankings order the sectors the other way):");
    for ((sector, stay, c), n) in kinds {
        let ours: Vec<_> = sectors.iter().filter(|s| s.2 == *c).collect();
        let names: Vec<String> = ours.iter().map(|s| format!("{} ({})", s.0, s.1)).collect();
        let m = named(sector);
        let swapped = m.is_some_and(|m| ours.iter().any(|o| ranked_apart(m, o)));
        if swapped {
            apart += n;
        }
        outln!(
            "  {} {sector} (ours {stay:+}, Malom {}) against our class {c:+} (the stay class of {}): {n}",
            if swapped { "*" } else { " " },
            m.map_or("0".to_string(), |m| m.1.to_string()),
            if names.is_empty() { "no sector".to_string() } else { names.join(", ") },
        );
    }
    outln!(
        "  {apart} of {} differing draws settle, by the two solutions, in sectors the two rankings order the other way",
        d.differ()
    );
}

/// The movement sectors present in both, each with Malom's value and our stay class
/// (from the value counts of both sectors of a pair, as the class builder computes it).
fn ranked_sectors(tb: &Tablebase, values: &SectorValues) -> Vec<(Sector, i16, i8)> {
    let mut sectors = Vec::new();
    for us in 3..=9 {
        for them in 3..=9 {
            let Some(s) = Sector::new(us, them) else {
                continue;
            };
            let (Some(m), Some(stay)) = (
                MalomSector::new(us, them, 0, 0).and_then(|m| values.get(m)),
                morris_builder::classes::stay_of(tb, Variant::Standard, s).ok(),
            ) else {
                continue;
            };
            sectors.push((s, m, stay));
        }
    }
    sectors
}

/// The order of the movement sectors by Malom's sector values against our stay
/// classes, over the sectors present in both: pairs ordered alike, the other way, or
/// tied in one of the two (our classes are rounded percent points, Malom's values
/// distinct ranks).
fn report_ranking(sectors: &[(Sector, i16, i8)]) {
    if sectors.len() < 2 {
        return;
    }
    let Order {
        alike,
        opposite,
        tied,
        examples,
    } = order(sectors);
    outln!(
        "sector ranking: {} movement sectors with our values; of their pairs, Malom's values and our stay classes order {alike} alike, {opposite} the other way, {tied} tied in one{}",
        sectors.len(),
        if examples.is_empty() {
            String::new()
        } else {
            format!(" (e.g. {})", examples.join("; "))
        }
    );
}

fn probe(args: &ProbeArgs) -> anyhow::Result<()> {
    if args.position.rules()? != morris_engine::Rules::STANDARD {
        return Err(InputError(
            "Malom's database is of the Standard game: --variant standard".into(),
        )
        .into());
    }
    let game = args.position.game()?;
    let pos = *game.position();
    let sector = MalomSector::of(&pos)
        .ok_or_else(|| InputError("no Malom sector holds this position".into()))?;
    let path = args.malom.join(sector.file_name());
    if !path.exists() {
        return Err(InputError(format!(
            "Malom's sector {sector} is not in {} (no {})",
            args.malom.display(),
            sector.file_name()
        ))
        .into());
    }
    let values = SectorValues::open(&args.malom.join(SECVAL_NAME))?;
    let file = MalomFile::open(&path, &values)?;
    let value = file.probe(pos.us(), pos.them())?;
    let settles = match value {
        MalomValue::Draw { sector_value } => values
            .sector_of(sector_value)
            .map_or(String::new(), |s| format!(", the value of {s}")),
        _ => String::new(),
    };
    outln!(
        "{value}{settles} for {} to move (Malom {sector})",
        pos.side_to_move()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Classes far apart on both sides of zero (3-7 against 7-3: -69 and +69, a
    /// difference beyond an i8) are ordered as their values say.
    #[test]
    fn rankings_compare_classes_far_apart() {
        let s = |name: &str| -> Sector { name.parse().expect("a sector") };
        let sectors = [
            (s("3-7"), -129, -69),
            (s("7-3"), 129, 69),
            (s("9-3"), 236, 100),
            (s("3-9"), -236, -100),
            (s("3-5"), -60, -11),
            (s("8-9"), -59, -47),
            (s("4-4"), 0, 0),
        ];
        let o = order(&sectors);
        // Pairs: 21; with 4-4 both rankings order every other sector alike; 3-5
        // and 8-9 are the one pair ordered the other way.
        assert_eq!((o.alike, o.opposite, o.tied), (20, 1, 0), "{o:?}");
        assert_eq!(
            o.examples,
            ["3-5 (Malom -60, ours -11) and 8-9 (Malom -59, ours -47)"]
        );
        // The same test one pair at a time, as the class differences use it.
        let apart: Vec<_> = sectors
            .iter()
            .enumerate()
            .flat_map(|(i, a)| sectors[i + 1..].iter().map(move |b| (a, b)))
            .filter(|(a, b)| ranked_apart(a, b))
            .map(|(a, b)| (a.0.to_string(), b.0.to_string()))
            .collect();
        assert_eq!(apart, [("3-5".to_string(), "8-9".to_string())]);
        assert!(ranked_apart(&sectors[5], &sectors[4]));
        assert!(!ranked_apart(&sectors[0], &sectors[1]));
    }
}
