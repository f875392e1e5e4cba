//! `morris stats`: what the tablebases hold.

use crate::tb::TbDir;
use morris_tablebase::classes;
use morris_tablebase::sector::SectorId;
use morris_tablebase::{PlacementSector, SectorStats};

/// Per-sector counts of wins, draws and losses, and the longest distances.
#[derive(clap::Args)]
#[command(
    after_help = "Counts are positions up to symmetry, values for the side to move; distances in plies.\n\
Movement sectors (US-THEM) come first, then placement sectors (US-THEM+USHAND-THEMHAND: pieces on\n\
the board, then in hand); 'total' sums a variant's movement sectors, 'placement' its placement sectors.\n\n\
With --by-placements, the placement sectors are summed by the number of pieces both sides still\n\
hold in hand: 2N in hand is the empty board of the game of N pieces a side (N is read from the\n\
sectors present), 1 the last placement (Black to move); placements made = 2N - in hand.\n\n\
Examples:\n  morris stats\n  morris stats --json --tb /data/tb\n  morris stats --by-placements --tb /data/tb\n  morris stats --by-placements --longest --tb /data/tb"
)]
pub struct Args {
    #[command(flatten)]
    tb: TbDir,

    /// Print a JSON array of objects, one per sector and variant.
    #[arg(long)]
    json: bool,

    /// Sum the placement sectors by pieces in hand (both sides) instead of listing
    /// every sector (with --sizes too: "in hand (sectors)" rows).
    #[arg(long, conflicts_with = "json")]
    by_placements: bool,

    /// With --by-placements: for each number of pieces in hand, a position of its
    /// longest win and of its longest loss (read from the raw file of the sector
    /// that holds it).
    #[arg(long, requires = "by_placements")]
    longest: bool,

    /// List the bytes of each sector's files, raw and compact (.wdl, .dtm), and their
    /// bits a position.
    #[arg(long, conflicts_with_all = ["json", "longest"])]
    sizes: bool,

    /// Rank the movement sectors by their stay class (the rank of a sector pair in
    /// the draw classes, docs/CLASSES.md), computed from the counts of the sector
    /// and its swapped partner, best for the side to move first.
    #[arg(long, conflicts_with_all = ["json", "longest", "sizes", "by_placements"])]
    stay_classes: bool,
}

/// Run the command.
///
/// # Errors
/// A bad tablebase file, named.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let dir = args.tb.path();
    let tb = args.tb.open()?;
    // Movement sectors, then placement sectors (names with the hands); a sector with
    // compact files only counts from their header.
    let mut rows: Vec<_> = tb
        .sectors()
        .map(|(v, s, f)| (v, SectorId::from(s), f.header().stats))
        .chain(
            tb.placement_sectors()
                .map(|(v, s, f)| (v, SectorId::from(s), f.header().stats)),
        )
        .collect();
    rows.extend(tb.compact_tables().filter_map(|(v, s, t)| {
        // (A `.wdl` file without values records the counts too.)
        let f = t.answering().or(t.wdl.as_ref())?;
        tb.file(v, s).is_none().then(|| (v, s, f.header().stats))
    }));
    rows.sort_by_key(|(v, s, _)| (*v, matches!(s, SectorId::Placement(_)), *s));
    if args.sizes {
        sizes(&tb, &rows, args.by_placements);
        return Ok(());
    }
    if args.stay_classes {
        stay_classes(&rows);
        return Ok(());
    }
    if args.json {
        let array: Vec<serde_json::Value> = rows
            .iter()
            .map(|(v, s, st)| {
                let (us, them) = s.board();
                let mut row = serde_json::json!({
                    "variant": v.table_name(), "us": us, "them": them,
                    "positions": st.positions, "wins": st.wins, "draws": st.draws, "losses": st.losses,
                    "longest_win": st.longest_win, "longest_loss": st.longest_loss,
                });
                if let (SectorId::Placement(p), Some(o)) = (s, row.as_object_mut()) {
                    o.insert("us_hand".into(), p.us_hand.into());
                    o.insert("them_hand".into(), p.them_hand.into());
                }
                if let (Some((stay, _)), Some(o)) = (stay_class(&rows, *v, *s), row.as_object_mut())
                {
                    o.insert("stay_class".into(), stay.into());
                }
                row
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&array)?);
        return Ok(());
    }
    if rows.is_empty() {
        outln!(
            "no tablebase files in {} (run `morris generate`)",
            dir.display()
        );
        return Ok(());
    }
    if args.by_placements {
        by_placements(&rows);
        if args.longest {
            longest(&tb, &rows)?;
        }
        return Ok(());
    }
    outln!("{:<10} {:>9} {COUNTS_HEAD}", "variant", "sector");
    let line = |name: &str, sector: &str, st: &SectorStats| {
        outln!("{name:<10} {sector:>9} {}", counts(st));
    };
    for variant in morris_engine::Rules::table_games() {
        let mut total = SectorStats::default();
        let mut any = false;
        let mut placement = SectorStats::default();
        let mut any_placement = false;
        for (v, s, st) in rows.iter().filter(|r| r.0 == variant) {
            line(&v.table_name(), &s.to_string(), st);
            let sum = match s {
                SectorId::Movement(_) => {
                    any = true;
                    &mut total
                }
                SectorId::Placement(_) => {
                    any_placement = true;
                    &mut placement
                }
            };
            sum.merge(st);
        }
        if any {
            line(&variant.table_name(), "total", &total);
        }
        if any_placement {
            line(&variant.table_name(), "placement", &placement);
        }
    }
    Ok(())
}

/// The stay class of movement sector `s` and the expected score of the side to move
/// over its pair, where the swapped sector's counts are there too.
fn stay_class(
    rows: &[(morris_engine::Rules, SectorId, SectorStats)],
    variant: morris_engine::Rules,
    s: SectorId,
) -> Option<(i8, f64)> {
    let SectorId::Movement(m) = s else {
        return None;
    };
    let counts = |t: SectorId| {
        rows.iter()
            .find(|(v, u, _)| *v == variant && *u == t)
            .map(|r| r.2)
    };
    let (own, swapped) = (counts(s)?, counts(m.swapped().into())?);
    Some((
        classes::stay_class(&own, &swapped),
        classes::expected_score(&own, &swapped),
    ))
}

/// Per variant, the movement sectors ranked by stay class, best first.
fn stay_classes(rows: &[(morris_engine::Rules, SectorId, SectorStats)]) {
    outln!(
        "{:<10} {:>6} {:>6} {:>8} {:>13}",
        "variant",
        "sector",
        "stay",
        "score",
        "draws"
    );
    for variant in morris_engine::Rules::table_games() {
        let mut ranked: Vec<(i8, f64, SectorId, u64)> = rows
            .iter()
            .filter(|r| r.0 == variant)
            .filter_map(|(_, s, st)| {
                stay_class(rows, variant, *s).map(|(c, e)| (c, e, *s, st.draws))
            })
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
        for (stay, score, s, draws) in ranked {
            outln!(
                "{:<10} {s:>6} {stay:>+6} {score:>8.3} {draws:>13}",
                variant.table_name()
            );
        }
    }
}

/// The headings of the columns [`counts`] prints.
const COUNTS_HEAD: &str =
    "    positions          wins         draws        losses  max win max loss";

/// A sector's (or a sum's) counts and longest distances, in columns.
fn counts(st: &SectorStats) -> String {
    format!(
        "{:>13} {:>13} {:>13} {:>13} {:>8} {:>8}",
        st.positions, st.wins, st.draws, st.losses, st.longest_win, st.longest_loss
    )
}

/// Per variant, the placement sectors summed by pieces in hand (both sides).
fn by_placements(rows: &[(morris_engine::Rules, SectorId, SectorStats)]) {
    outln!(
        "{:<10} {:>7} {:>7} {:>8} {COUNTS_HEAD}",
        "variant",
        "in hand",
        "placed",
        "sectors"
    );
    for variant in morris_engine::Rules::table_games() {
        let layers = layers(rows, variant);
        // Pieces a side of the game, from its largest sectors.
        let pieces = layers
            .values()
            .flatten()
            .map(|(p, _)| (p.us + p.us_hand).max(p.them + p.them_hand))
            .max()
            .unwrap_or(0);
        for (in_hand, sectors) in layers.iter().rev() {
            let mut sum = SectorStats::default();
            sectors.iter().for_each(|(_, st)| sum.merge(st));
            outln!(
                "{:<10} {in_hand:>7} {:>7} {:>8} {}",
                variant.table_name(),
                (2 * pieces).saturating_sub(*in_hand),
                sectors.len(),
                counts(&sum)
            );
        }
    }
}

/// A variant's placement sectors by the pieces both sides hold in hand.
fn layers(
    rows: &[(morris_engine::Rules, SectorId, SectorStats)],
    variant: morris_engine::Rules,
) -> std::collections::BTreeMap<u8, Vec<(PlacementSector, SectorStats)>> {
    let mut layers: std::collections::BTreeMap<u8, Vec<_>> = Default::default();
    for (_, s, st) in rows.iter().filter(|r| r.0 == variant) {
        if let SectorId::Placement(p) = s {
            layers
                .entry(p.us_hand + p.them_hand)
                .or_default()
                .push((*p, *st));
        }
    }
    layers
}

/// Per variant and number of pieces in hand, a position of the longest win and of the
/// longest loss, from the raw file of the sector that holds each.
fn longest(
    tb: &morris_tablebase::Tablebase,
    rows: &[(morris_engine::Rules, SectorId, SectorStats)],
) -> anyhow::Result<()> {
    use morris_tablebase::Wdl;
    outln!();
    outln!(
        "{:<10} {:>7} {:>5} {:>6} {:>14}  position",
        "variant",
        "in hand",
        "value",
        "plies",
        "sector"
    );
    for variant in morris_engine::Rules::table_games() {
        for (in_hand, sectors) in layers(rows, variant).iter().rev() {
            for wdl in [Wdl::Win, Wdl::Loss] {
                let plies = |st: &SectorStats| match wdl {
                    Wdl::Win if st.wins > 0 => Some(st.longest_win),
                    Wdl::Loss if st.losses > 0 => Some(st.longest_loss),
                    _ => None,
                };
                // The longest; among equals, one with a raw file to read it from.
                let Some((p, d)) = sectors
                    .iter()
                    .filter_map(|(p, st)| Some((*p, plies(st)?)))
                    .max_by_key(|&(p, d)| (d, tb.file(variant, p).is_some(), std::cmp::Reverse(p)))
                else {
                    continue;
                };
                let name = if wdl == Wdl::Win { "win" } else { "loss" };
                let found = match tb.file(variant, p) {
                    Some(file) => find_value(file, wdl, d)?.map(|i| {
                        let (us, them) = file.index().position(i);
                        morris_engine::Position::from_setup(&p.game_setup(us, them), variant)
                            .map(|pos| pos.to_string())
                            .unwrap_or_else(|e| format!("(entry {i}: {e})"))
                    }),
                    None => Some("(no raw file to read it from)".to_string()),
                };
                let at = found.unwrap_or_else(|| "(not found: the header disagrees)".into());
                outln!(
                    "{:<10} {in_hand:>7} {name:>5} {d:>6} {:>14}  {at}",
                    variant.table_name(),
                    p.to_string()
                );
            }
        }
    }
    Ok(())
}

/// The first entry of a raw file whose value is `wdl` in `plies`, checked as read.
fn find_value(
    file: &morris_tablebase::SectorFile,
    wdl: morris_tablebase::Wdl,
    plies: u16,
) -> anyhow::Result<Option<u64>> {
    use rayon::prelude::*;
    let codes = file.entries()?;
    const CHUNK: usize = 1 << 20;
    Ok(codes
        .par_chunks(CHUNK)
        .enumerate()
        .find_map_first(|(c, chunk)| {
            chunk
                .iter()
                .position(|&b| {
                    let v = morris_tablebase::file::decode_byte(b);
                    v.wdl() == wdl && v.dtm() == Some(plies)
                })
                .map(|i| (c * CHUNK + i) as u64)
        }))
}

/// Positions and bytes of the raw, `.wdl` and `.dtm` files of a sector or a sum of
/// sectors; bits a position count only the sectors that have the form.
#[derive(Default)]
struct SizeSum {
    positions: u64,
    /// Per form: positions of the sectors that have it, and its bytes.
    forms: [(u64, u64); 3],
}

impl SizeSum {
    /// The files of sector `s` of `variant`, which has `positions` positions.
    fn of(
        tb: &morris_tablebase::Tablebase,
        variant: morris_engine::Rules,
        s: impl Into<SectorId>,
        positions: u64,
    ) -> SizeSum {
        let s = s.into();
        let compact = tb.compact(variant, s);
        let bytes = [
            tb.file(variant, s).map(|f| f.header().file_len()),
            compact
                .and_then(|t| t.wdl.as_ref())
                .map(|f| f.header().file_len()),
            compact
                .and_then(|t| t.dtm.as_ref())
                .map(|f| f.header().file_len()),
        ];
        SizeSum {
            positions,
            forms: bytes.map(|b| b.map_or((0, 0), |b| (positions, b))),
        }
    }

    fn merge(&mut self, other: &SizeSum) {
        self.positions += other.positions;
        for (form, o) in self.forms.iter_mut().zip(other.forms) {
            form.0 += o.0;
            form.1 += o.1;
        }
    }

    /// One line of the table: variant, what is summed, then the columns.
    fn line(&self, variant: morris_engine::Rules, what: &str) {
        let mut out = format!(
            "{:<10} {what:>12} {:>14}",
            variant.table_name(),
            self.positions
        );
        for (n, bytes) in self.forms {
            if n == 0 {
                out += &format!(" {:>14} {:>8}", "-", "-");
            } else {
                let bits = bytes as f64 * 8.0 / n as f64;
                out += &format!(" {bytes:>14} {bits:>8.3}");
            }
        }
        outln!("{out}");
    }
}

/// Per sector (or, with `by_placements`, per number of pieces in hand for the
/// placement sectors), the bytes of its raw and compact files and their bits a
/// position; per variant and kind of sector, the totals.
fn sizes(
    tb: &morris_tablebase::Tablebase,
    rows: &[(morris_engine::Rules, SectorId, SectorStats)],
    by_placements: bool,
) {
    outln!(
        "{:<10} {:>12} {:>14} {:>14} {:>8} {:>14} {:>8} {:>14} {:>8}",
        "variant",
        if by_placements {
            "sector/hand"
        } else {
            "sector"
        },
        "positions",
        "raw bytes",
        "bits",
        "wdl bytes",
        "bits",
        "dtm bytes",
        "bits"
    );
    let mut totals: std::collections::BTreeMap<(morris_engine::Rules, bool), SizeSum> =
        Default::default();
    for (v, s, st) in rows {
        let sector = SizeSum::of(tb, *v, *s, st.positions);
        let placement = matches!(s, SectorId::Placement(_));
        if !(placement && by_placements) {
            sector.line(*v, &s.to_string());
        }
        totals.entry((*v, placement)).or_default().merge(&sector);
    }
    if by_placements {
        for variant in morris_engine::Rules::table_games() {
            for (in_hand, sectors) in layers(rows, variant).iter().rev() {
                let mut sum = SizeSum::default();
                for (p, st) in sectors {
                    sum.merge(&SizeSum::of(tb, variant, *p, st.positions));
                }
                sum.line(variant, &format!("{in_hand} ({})", sectors.len()));
            }
        }
    }
    for ((v, placement), sum) in &totals {
        sum.line(*v, if *placement { "placement" } else { "movement" });
    }
}
