//! `morris stats`: what the tablebases hold.

use crate::tb::TbDir;
use morris_tablebase::SectorStats;

/// Per-sector counts of wins, draws and losses, and the longest distances.
#[derive(clap::Args)]
#[command(
    after_help = "Counts are positions up to symmetry, values for the side to move; distances in plies.\n\n\
Examples:\n  morris stats\n  morris stats --json --tb /data/tb"
)]
pub struct Args {
    #[command(flatten)]
    tb: TbDir,

    /// Print a JSON array of objects, one per sector and variant.
    #[arg(long)]
    json: bool,
}

/// Run the command.
///
/// # Errors
/// A bad tablebase file, named.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let dir = args.tb.path();
    let tb = args.tb.open()?;
    let rows: Vec<_> = tb
        .sectors()
        .map(|(v, s, f)| (v, s, f.header().stats))
        .collect();
    if args.json {
        let array: Vec<serde_json::Value> = rows
            .iter()
            .map(|(v, s, st)| {
                serde_json::json!({
                    "variant": v.name(), "us": s.us, "them": s.them,
                    "positions": st.positions, "wins": st.wins, "draws": st.draws, "losses": st.losses,
                    "longest_win": st.longest_win, "longest_loss": st.longest_loss,
                })
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
    outln!(
        "{:<10} {:>6} {:>13} {:>13} {:>13} {:>13} {:>8} {:>8}",
        "variant",
        "sector",
        "positions",
        "wins",
        "draws",
        "losses",
        "max win",
        "max loss"
    );
    let line = |name: &str, sector: &str, st: &SectorStats| {
        outln!(
            "{:<10} {:>6} {:>13} {:>13} {:>13} {:>13} {:>8} {:>8}",
            name,
            sector,
            st.positions,
            st.wins,
            st.draws,
            st.losses,
            st.longest_win,
            st.longest_loss
        );
    };
    for variant in morris_engine::Variant::ALL {
        let mut total = SectorStats::default();
        let mut any = false;
        for (v, s, st) in rows.iter().filter(|r| r.0 == variant) {
            line(v.name(), &s.to_string(), st);
            total.positions += st.positions;
            total.wins += st.wins;
            total.draws += st.draws;
            total.losses += st.losses;
            total.longest_win = total.longest_win.max(st.longest_win);
            total.longest_loss = total.longest_loss.max(st.longest_loss);
            any = true;
        }
        if any {
            line(variant.name(), "total", &total);
        }
    }
    Ok(())
}
