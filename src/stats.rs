//! `morris stats`: what the tablebases hold.

use crate::tb::TbDir;
use morris_tablebase::sector::SectorId;
use morris_tablebase::SectorStats;

/// Per-sector counts of wins, draws and losses, and the longest distances.
#[derive(clap::Args)]
#[command(
    after_help = "Counts are positions up to symmetry, values for the side to move; distances in plies.\n\
Movement sectors (US-THEM) come first, then placement sectors (US-THEM+USHAND-THEMHAND: pieces on\n\
the board, then in hand); 'total' sums a variant's movement sectors, 'placement' its placement sectors.\n\n\
With --by-placements, the placement sectors are summed by the number of pieces both sides still\n\
hold in hand: 2N in hand is the empty board of the game of N pieces a side (N is read from the\n\
sectors present), 1 the last placement (Black to move); placements made = 2N - in hand.\n\n\
Examples:\n  morris stats\n  morris stats --json --tb /data/tb\n  morris stats --by-placements --tb /data/tb"
)]
pub struct Args {
    #[command(flatten)]
    tb: TbDir,

    /// Print a JSON array of objects, one per sector and variant.
    #[arg(long)]
    json: bool,

    /// Sum the placement sectors by pieces in hand (both sides) instead of listing
    /// every sector.
    #[arg(long, conflicts_with = "json")]
    by_placements: bool,
}

/// Run the command.
///
/// # Errors
/// A bad tablebase file, named.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let dir = args.tb.path();
    let tb = args.tb.open()?;
    // Movement sectors, then placement sectors (names with the hands).
    let rows: Vec<_> = tb
        .sectors()
        .map(|(v, s, f)| (v, SectorId::from(s), f.header().stats))
        .chain(
            tb.placement_sectors()
                .map(|(v, s, f)| (v, SectorId::from(s), f.header().stats)),
        )
        .collect();
    if args.json {
        let array: Vec<serde_json::Value> = rows
            .iter()
            .map(|(v, s, st)| {
                let (us, them) = s.board();
                let mut row = serde_json::json!({
                    "variant": v.name(), "us": us, "them": them,
                    "positions": st.positions, "wins": st.wins, "draws": st.draws, "losses": st.losses,
                    "longest_win": st.longest_win, "longest_loss": st.longest_loss,
                });
                if let (SectorId::Placement(p), Some(o)) = (s, row.as_object_mut()) {
                    o.insert("us_hand".into(), p.us_hand.into());
                    o.insert("them_hand".into(), p.them_hand.into());
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
        return Ok(());
    }
    outln!("{:<10} {:>9} {COUNTS_HEAD}", "variant", "sector");
    let line = |name: &str, sector: &str, st: &SectorStats| {
        outln!("{name:<10} {sector:>9} {}", counts(st));
    };
    for variant in morris_engine::Variant::ALL {
        let mut total = SectorStats::default();
        let mut any = false;
        let mut placement = SectorStats::default();
        let mut any_placement = false;
        for (v, s, st) in rows.iter().filter(|r| r.0 == variant) {
            line(v.name(), &s.to_string(), st);
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
            line(variant.name(), "total", &total);
        }
        if any_placement {
            line(variant.name(), "placement", &placement);
        }
    }
    Ok(())
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
fn by_placements(rows: &[(morris_engine::Variant, SectorId, SectorStats)]) {
    outln!(
        "{:<10} {:>7} {:>7} {:>8} {COUNTS_HEAD}",
        "variant",
        "in hand",
        "placed",
        "sectors"
    );
    for variant in morris_engine::Variant::ALL {
        let mut sums: std::collections::BTreeMap<u8, (u32, SectorStats)> = Default::default();
        // Pieces a side of the game, from its largest sectors.
        let mut pieces = 0;
        for (_, s, st) in rows.iter().filter(|r| r.0 == variant) {
            if let SectorId::Placement(p) = s {
                let sum = sums.entry(p.us_hand + p.them_hand).or_default();
                sum.0 += 1;
                sum.1.merge(st);
                pieces = pieces.max(p.us + p.us_hand).max(p.them + p.them_hand);
            }
        }
        for (in_hand, (sectors, st)) in sums.iter().rev() {
            outln!(
                "{:<10} {in_hand:>7} {:>7} {sectors:>8} {}",
                variant.name(),
                (2 * pieces).saturating_sub(*in_hand),
                counts(st)
            );
        }
    }
}
