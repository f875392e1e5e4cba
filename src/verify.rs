//! `morris verify`: check tablebase files, raw and compact.
//!
//! Every file named is checked against its checksums; a compact file is compared with
//! the raw file of its sector where the directory has one (and with `--against`, with
//! the raw file of another directory). With `--full` every sector is recomputed from
//! its successors, read from the raw file where there is one, else from the compact
//! `.dtm` file, else from the `.wdl` file (results alone); a `.wdl` file beside a
//! verified `.dtm` file is compared with it.

use crate::tb::{games_name, TbDir, Variants};
use indicatif::{ProgressBar, ProgressStyle};
use morris_builder::verify::{self, check_sector, reads, Mismatches, Source, Stored, VerifyError};
use morris_engine::Rules;
use morris_tablebase::compact::{CompactFile, CompactTable, Kind};
use morris_tablebase::file::file_name;
use morris_tablebase::sector::SectorId;
use morris_tablebase::{FileError, SectorFile};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

/// `n` things, with the plural for any `n` but one.
fn plural(n: u64, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// Check every tablebase file: header, size and checksum; with --full, every value.
#[derive(clap::Args)]
#[command(
    after_help = "With --full every stored value is recomputed from the values of its successors by\n\
the engine's move generator, a code path separate from the generator's propagation.\n\n\
Compact files (.wdl, .dtm) are checked like raw ones: each against the raw file of its sector in\n\
the same directory, if any; with --full, a sector without a raw file is recomputed from its .dtm\n\
file, else from its .wdl file (win, draw or loss only: without distances this cannot prove a\n\
result where positions repeat, and the summary says so).\n\n\
A full check of every sector takes hours; --sector splits it into parts (run them one by one\n\
to resume an interrupted check). Each sector's time and rate is printed.\n\n\
Examples:\n  morris verify\n  morris verify --full --tb /data/tb\n  \
morris verify --full --variant no-flying --sector 8-9 --sector 9-8\n  \
morris verify --full --variant standard --sector 0-0+9-9"
)]
pub struct Args {
    #[command(flatten)]
    tb: TbDir,

    /// Recompute every value from its successors.
    #[arg(long)]
    full: bool,

    /// Which game(s).
    #[arg(long, value_enum, default_value_t = Variants::Both)]
    variant: Variants,

    /// The tables of house rules instead of --variant, e.g. "standard,captures=per-mill".
    #[arg(long, value_name = "SPEC", conflicts_with = "variant")]
    rules: Option<String>,

    /// With --full, recompute only these sectors' values, e.g. --sector 8-9 or
    /// --sector 6-5+1-1; only the files that check reads (the sector, its swapped sector
    /// and the sector its captures reach; for a placement sector, the sectors its
    /// placements reach) are checksummed.
    #[arg(long, value_name = "SECTOR", requires = "full")]
    sector: Vec<SectorId>,

    /// Compare every value of the compact files (.wdl, .dtm) with the raw files of
    /// this directory (a compact file without one there is a failure).
    #[arg(long, value_name = "RAW_DIR")]
    against: Option<std::path::PathBuf>,
}

/// What the compact files of a run compared with `--against`.
#[derive(Default)]
struct Against {
    /// Compact files compared with a raw file.
    compared: u64,
    /// Compact files without a raw file to compare with.
    missing: u64,
}

/// Check one compact file: its blocks and counts, or, where `raw` (the raw file of its
/// sector in the same directory) is good, every value against it; with `against`, every
/// value against the raw file of that directory. The line to print when it is good.
fn check_compact(
    file: &CompactFile,
    raw: Option<&SectorFile>,
    against: Option<&Path>,
    tally: &mut Against,
) -> Result<String, FileError> {
    let (variant, sector) = (file.header().rules, file.header().sector);
    let entries = file.header().entries;
    let agree = |path: &Path| {
        if file.is_derived() {
            format!(
                "no values stored (they follow from the successors': --full checks them), counts agree with {}",
                path.display()
            )
        } else {
            format!(
                "checksums ok, all {entries} values agree with {}",
                path.display()
            )
        }
    };
    let mut line = match raw {
        Some(raw) => {
            verify::compare(file, raw)?;
            agree(raw.path())
        }
        None => {
            file.check()?;
            format!("checksums ok ({entries} positions)")
        }
    };
    if let Some(raw_dir) = against {
        let path = raw_dir.join(file_name(variant, sector));
        match SectorFile::open(&path, variant, sector) {
            Err(e) if e.problem.is_missing() => {
                tally.missing += 1;
                line = format!("{line}, NOT COMPARED: no raw file {}", path.display());
            }
            Err(e) => return Err(e),
            Ok(theirs) => {
                verify::compare(file, &theirs)?;
                tally.compared += 1;
                line = agree(&path);
            }
        }
    }
    Ok(line)
}

/// How the file a sector's values are read from is named on an output line after the
/// sector: nothing for a raw file, its extension for a compact one.
fn label(source: Source<'_>) -> String {
    match source {
        Source::Raw(_) => String::new(),
        Source::Compact(f) => format!(" {}", f.header().kind.extension()),
    }
}

/// The good files of a run, by variant and sector.
struct Good {
    raw: HashMap<(Rules, SectorId), SectorFile>,
    compact: BTreeMap<(Rules, SectorId), CompactTable>,
}

impl Good {
    /// The file a sector's values are best read from: the raw file, else the `.dtm`
    /// file, else the `.wdl` file.
    fn source(&self, variant: Rules, sector: SectorId) -> Option<Source<'_>> {
        if let Some(f) = self.raw.get(&(variant, sector)) {
            return Some(Source::Raw(f));
        }
        // A `.wdl` file without values stands for values found from the successors'.
        self.compact
            .get(&(variant, sector))
            .and_then(|t| t.answering().or(t.wdl.as_ref()))
            .map(Source::Compact)
    }

    /// Recompute the values of `sector` held by `own` from its successors, read from
    /// the best file of each sector they lie in.
    fn check_values(
        &self,
        variant: Rules,
        sector: SectorId,
        own: Source<'_>,
        bar: &ProgressBar,
    ) -> Result<Mismatches, VerifyError> {
        let progress = |n| bar.inc(n);
        check_sector(variant, sector, own, |s| self.source(variant, s), &progress)
    }
}

/// What the full check of a run found.
#[derive(Default)]
struct Full {
    /// Sectors whose values (with distances) were recomputed.
    values: u64,
    /// Sectors whose results alone were recomputed (no file with distances).
    results_only: u64,
    /// Sectors without distances of their own whose successors all have them (a
    /// one-sided compact set): their results follow from values with distances, so
    /// their check is complete, and so is the distances' found from them.
    derived: u64,
    /// Values that disagree with their successors.
    mismatches: u64,
    /// Files found bad or that could not be checked.
    bad: u64,
}

/// Recompute the values of `sector` from `own`, printing the outcome.
fn full_check(
    good: &Good,
    variant: Rules,
    sector: SectorId,
    own: Source<'_>,
    full: &mut Full,
) -> bool {
    let size = sector.size(variant.board());
    let what = format!("{variant} {sector}{}", label(own));
    let bar = ProgressBar::new(size).with_message(what.clone());
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:20} [{bar:30}] {human_pos}/{human_len} {per_sec} ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let start = Instant::now();
    let result = good.check_values(variant, sector, own, &bar);
    bar.finish_and_clear();
    let m = match result {
        Ok(m) => m,
        Err(e) => {
            outln!("{what}: cannot check values: {e}");
            full.bad += 1;
            return false;
        }
    };
    let derived = sector.successors(variant).into_iter().all(|t| {
        good.source(variant, t)
            .is_some_and(|f| f.stored() == Stored::Values)
    });
    match own.stored() {
        Stored::Values => full.values += 1,
        Stored::ResultsOnly | Stored::Nothing if derived => full.derived += 1,
        Stored::ResultsOnly | Stored::Nothing => full.results_only += 1,
    }
    full.mismatches += m.count;
    let secs = start.elapsed().as_secs_f64();
    let rate = size as f64 / secs.max(1e-9) / 1e6;
    match (m.example, own.stored()) {
        (None, Stored::Values) => outln!(
            "{what}: all {size} values agree with their successors ({secs:.1} s, {rate:.2} M positions/s)"
        ),
        (None, Stored::ResultsOnly) => outln!(
            "{what}: win, draw or loss of all {size} positions agree with their successors' ({secs:.1} s, {rate:.2} M positions/s)"
        ),
        (None, Stored::Nothing) => outln!(
            "{what}: no values stored; those of all {size} positions found from their successors' give the counts of its header ({secs:.1} s, {rate:.2} M positions/s)"
        ),
        (Some((i, stored, computed)), _) => outln!(
            "{what}: {} MISMATCHES, e.g. index {i}: stored {stored}, successors give {computed}",
            m.count
        ),
    }
    m.count == 0
}

/// Run the command; any bad file or mismatch is a failure (exit status 1).
///
/// # Errors
/// The number of bad files and mismatches; with `--against`, nothing to compare.
pub fn run(args: &Args) -> anyhow::Result<()> {
    crate::tb::start_threads(None)?;
    let dir = args.tb.path();
    let mut bad = 0u64;
    let scanned = args.tb.scan()?;
    let scanned_compact = args.tb.scan_compact()?;
    if scanned.is_empty() && scanned_compact.is_empty() {
        anyhow::bail!("no tablebase files in {}", dir.display());
    }
    let variants = args
        .variant
        .with_rules(args.rules.as_deref())
        .map_err(|e| anyhow::anyhow!(e))?;
    // With --sector, only the files those sectors' check reads, and for a sector read
    // that a sparse set leaves without values, the files it is found from.
    let mut wanted = HashSet::new();
    for &t in &args.sector {
        for &v in &variants {
            for u in reads(v, t) {
                if u != t && u.distances_derived(v) {
                    wanted.extend(reads(v, u));
                }
                wanted.insert(u);
            }
        }
    }
    let needed = |s: SectorId| args.sector.is_empty() || wanted.contains(&s);
    let mut good = Good {
        raw: HashMap::new(),
        compact: BTreeMap::new(),
    };
    for (variant, sector, file) in scanned {
        if !variants.contains(&variant) || !needed(sector) {
            continue;
        }
        match file.and_then(|f| f.check_payload().map(|()| f)) {
            Ok(f) => {
                outln!(
                    "{variant} {sector}: checksum ok ({} positions)",
                    f.header().entries
                );
                good.raw.insert((variant, sector), f);
            }
            Err(e) => {
                outln!("{variant} {sector}: BAD: {e}");
                bad += 1;
            }
        }
    }
    let (mut compact_files, mut tally) = (0u64, Against::default());
    for (variant, sector, kind, file) in scanned_compact {
        if !variants.contains(&variant) || !needed(sector) {
            continue;
        }
        compact_files += 1;
        let what = format!("{variant} {sector} {}", kind.extension());
        let raw = good.raw.get(&(variant, sector));
        let checked = file.and_then(|f| {
            check_compact(&f, raw, args.against.as_deref(), &mut tally).map(|line| (f, line))
        });
        match checked {
            Ok((f, line)) => {
                outln!("{what}: {line}");
                let table = good.compact.entry((variant, sector)).or_default();
                match kind {
                    Kind::Wdl => table.wdl = Some(f),
                    Kind::Dtm => table.dtm = Some(f),
                }
            }
            Err(e) => {
                outln!("{what}: BAD: {e}");
                bad += 1;
            }
        }
    }
    let files = good.raw.len() as u64
        + good
            .compact
            .values()
            .map(|t| t.files().count() as u64)
            .sum::<u64>();
    if files == 0 && bad == 0 && args.sector.is_empty() {
        anyhow::bail!(
            "no {} tablebase files in {}",
            games_name(args.variant, args.rules.as_deref()),
            dir.display()
        );
    }
    let mut full = Full::default();
    if args.full {
        // Movement sectors first, then placement sectors.
        let mut keys: Vec<(Rules, SectorId)> = good
            .raw
            .keys()
            .chain(good.compact.keys())
            .copied()
            .filter(|(_, s)| args.sector.is_empty() || args.sector.contains(s))
            .collect();
        keys.sort();
        keys.dedup();
        for s in &args.sector {
            if !keys.iter().any(|k| k.1 == *s) {
                outln!("sector {s}: no good file to check");
                bad += 1;
            }
        }
        for (variant, sector) in keys {
            let Some(own) = good.source(variant, sector) else {
                continue;
            };
            let agrees = full_check(&good, variant, sector, own, &mut full);
            // A raw file's sector: its compact files were compared with it above. A
            // `.dtm` file's: its `.wdl` file is compared with it when it was right,
            // else recomputed on its own.
            let table = good.compact.get(&(variant, sector));
            let (Source::Compact(dtm), Some(wdl)) = (own, table.and_then(|t| t.wdl.as_ref()))
            else {
                continue;
            };
            if dtm.header().kind != Kind::Dtm {
                continue;
            }
            let what = format!("{variant} {sector} wdl");
            if agrees {
                match verify::compare_compact(wdl, dtm) {
                    Ok(()) => outln!(
                        "{what}: all {} values agree with {}",
                        wdl.header().entries,
                        dtm.path().display()
                    ),
                    Err(e) => {
                        outln!("{what}: BAD: {e}");
                        bad += 1;
                    }
                }
            } else {
                full_check(&good, variant, sector, Source::Compact(wdl), &mut full);
            }
        }
    }
    bad += full.bad;
    let (class_bad, class_mismatches) = check_classes(args, &dir)?;
    bad += class_bad;
    full.mismatches += class_mismatches;
    if bad > 0 || full.mismatches > 0 {
        anyhow::bail!(
            "{bad} bad or uncheckable files, {} mismatched values",
            full.mismatches
        );
    }
    if let Some(raw_dir) = &args.against {
        if compact_files == 0 {
            anyhow::bail!(
                "no compact files in {} to compare with {}",
                dir.display(),
                raw_dir.display()
            );
        }
        if tally.compared == 0 {
            anyhow::bail!(
                "nothing to compare: no raw file in {} matches a compact file of {}",
                raw_dir.display(),
                dir.display()
            );
        }
        if tally.missing > 0 {
            anyhow::bail!(
                "{} not compared: no raw file in {} for them",
                plural(tally.missing, "compact file"),
                raw_dir.display()
            );
        }
    }
    outln!("{}", summary(args, files, &full));
    Ok(())
}

/// Check every class file: its header and payload, and that it belongs to the values
/// beside it; with `--full`, every class recomputed from its successors' classes. The
/// bad files and the mismatched classes.
fn check_classes(args: &Args, dir: &std::path::Path) -> anyhow::Result<(u64, u64)> {
    let names = morris_tablebase::classes::class_names(dir)?;
    let variants = args
        .variant
        .with_rules(args.rules.as_deref())
        .map_err(|e| anyhow::anyhow!(e))?;
    let chosen = |v: Rules, s: SectorId| {
        variants.contains(&v) && (args.sector.is_empty() || args.sector.contains(&s))
    };
    if !names.iter().any(|(v, s, _)| chosen(*v, *s)) {
        return Ok((0, 0));
    }
    let tb = args.tb.open()?;
    let (mut bad, mut mismatches) = (0u64, 0u64);
    for &variant in &variants {
        let (b, m) = check_variant_classes(args, dir, &tb, variant, &names, &chosen)?;
        bad += b;
        mismatches += m;
    }
    Ok((bad, mismatches))
}

/// [`check_classes`] for one variant: its class files alone are the successors'.
fn check_variant_classes(
    args: &Args,
    dir: &std::path::Path,
    tb: &morris_tablebase::Tablebase,
    variant: Rules,
    names: &[(Rules, SectorId, std::path::PathBuf)],
    chosen: &dyn Fn(Rules, SectorId) -> bool,
) -> anyhow::Result<(u64, u64)> {
    use morris_builder::classes::{finished, verify_sector, Store};
    let (mut bad, mut mismatches) = (0u64, 0u64);
    let mut good = Vec::new();
    for (v, sector, _) in names {
        if *v != variant || !chosen(variant, *sector) {
            continue;
        }
        // Every block read and checked; the entries are not kept.
        match finished(dir, tb, &Store::default(), variant, *sector) {
            Ok(Some(_)) => {
                good.push(*sector);
                if !args.full {
                    outln!("{variant} {sector} classes: checksum ok");
                }
            }
            Ok(None) => {}
            Err(e) => {
                outln!("{variant} {sector} classes: BAD: {e}");
                bad += 1;
            }
        }
    }
    if args.full {
        // Each sector with the classes it is checked against (its successors'),
        // read from their files; only those are held at a time.
        let mut store = Store::default();
        for sector in good {
            match verify_sector(dir, tb, &mut store, variant, sector) {
                Ok((0, _)) => outln!("{variant} {sector} classes: every class verified"),
                Ok((n, first)) => {
                    outln!(
                        "{variant} {sector} classes: BAD: {n} classes differ from their successors' (first at entry {})",
                        first.unwrap_or(0)
                    );
                    mismatches += n;
                }
                Err(e) => {
                    outln!("{variant} {sector} classes: BAD: {e}");
                    bad += 1;
                }
            }
        }
    }
    Ok((bad, mismatches))
}

/// The last line of a run that found nothing wrong.
fn summary(args: &Args, files: u64, full: &Full) -> String {
    if !args.full {
        return format!("all {files} files ok");
    }
    let verified = if args.sector.is_empty() && full.results_only == 0 {
        ", every value verified".to_string()
    } else if full.values > 0 {
        format!(
            ", every value of {} verified",
            plural(full.values, "sector")
        )
    } else {
        String::new()
    };
    let derived = if full.derived > 0 {
        format!(
            " ({} without distances of their own, checked from the distances of their successors)",
            plural(full.derived, "sector")
        )
    } else {
        String::new()
    };
    if full.results_only == 0 {
        return format!("all {files} files ok{verified}{derived}");
    }
    format!(
        "all {files} files ok{verified}{derived}; {} with no distances (a .wdl file alone): their win, draw or loss agree with their successors', which cannot rule out a wrong labelling where positions repeat",
        plural(full.results_only, "sector")
    )
}
