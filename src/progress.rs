//! Progress bars and log lines of a tablebase generation run, for `morris generate`
//! and for `morris solve` when it builds the small tables it needs first; and the bar
//! of games of `morris match`.

use crate::tb::human_bytes;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use morris_builder::driver::{Reporter, SectorReport};
use morris_builder::Observer;
use morris_engine::Rules;
use morris_tablebase::SectorId;
use std::time::{Duration, Instant};

/// Progress bars and log lines of a generation run.
pub struct Progress {
    multi: MultiProgress,
    overall: ProgressBar,
    phase: ProgressBar,
    pair: std::sync::Mutex<String>,
    phase_start: std::sync::Mutex<Instant>,
    visible: bool,
    to_stderr: bool,
}

impl Progress {
    /// Bars for a run of `total` positions, log lines on standard output.
    pub fn new(total: u64) -> Progress {
        Progress::with_log(total, false)
    }

    /// Bars for a run of `total` positions, log lines on standard error (for a
    /// command whose standard output is its answer).
    pub fn on_stderr(total: u64) -> Progress {
        Progress::with_log(total, true)
    }

    fn with_log(total: u64, to_stderr: bool) -> Progress {
        let multi = MultiProgress::new();
        let visible = !multi.is_hidden();
        if !visible {
            multi.set_draw_target(ProgressDrawTarget::hidden());
        }
        let overall = multi.add(ProgressBar::new(total));
        overall.set_style(
            ProgressStyle::with_template("overall  [{bar:30}] {percent:>3}% {human_pos}/{human_len} positions, {per_sec}, ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let phase = multi.add(ProgressBar::new(0));
        phase.set_style(
            ProgressStyle::with_template(
                "{msg:24} [{bar:30}] {human_pos}/{human_len} {per_sec} ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        overall.enable_steady_tick(Duration::from_millis(500));
        Progress {
            multi,
            overall,
            phase,
            pair: std::sync::Mutex::new(String::new()),
            phase_start: std::sync::Mutex::new(Instant::now()),
            visible,
            to_stderr,
        }
    }
}

impl Progress {
    /// Remove the bars.
    pub fn finish(&self) {
        self.phase.finish_and_clear();
        self.overall.finish_and_clear();
    }
}

impl Observer for Progress {
    fn phase(&self, name: &str, work: u64) {
        let pair = self.pair.lock().map(|p| p.clone()).unwrap_or_default();
        self.phase.reset();
        self.phase.set_length(work);
        self.phase.set_message(format!("{pair} {name}"));
        let took = self.phase_start.lock().map(|mut t| {
            let took = t.elapsed();
            *t = Instant::now();
            took
        });
        let took = took.map_or(String::new(), |d| {
            format!(" (previous phase {:.1} s)", d.as_secs_f64())
        });
        self.log(&format!("  {pair}: {name}{took}"));
    }

    fn advance(&self, done: u64) {
        self.phase.inc(done);
    }
}

impl Reporter for Progress {
    fn log(&self, line: &str) {
        if self.visible {
            let _ = self.multi.println(line);
        } else if self.to_stderr {
            errln!("{line}");
        } else {
            outln!("{line}");
        }
    }

    fn pair_started(&self, variant: Rules, sectors: &[SectorId], positions: u64) {
        let names: Vec<String> = sectors.iter().map(ToString::to_string).collect();
        if let Ok(mut p) = self.pair.lock() {
            *p = format!("{} {}", variant, names.join("+"));
        }
        self.log(&format!(
            "{variant} {}: solving {positions} positions",
            names.join(" and ")
        ));
    }

    fn sector_done(&self, r: &SectorReport) {
        let s = &r.stats;
        if !r.skipped {
            self.overall.inc(s.positions);
        }
        let tail = if r.skipped {
            "already finished, checksum ok".to_string()
        } else {
            let unit = match r.sector {
                SectorId::Movement(_) => "pair",
                SectorId::Placement(_) => "sector",
            };
            format!(
                "{:.1} s for the {unit}, peak memory {}",
                r.time.as_secs_f64(),
                r.peak_memory.map_or("unknown".into(), human_bytes)
            )
        };
        self.log(&format!(
            "{} {}: {} positions, {} wins, {} draws, {} losses, longest win {}, longest loss {}; {tail}",
            r.rules, r.sector, s.positions, s.wins, s.draws, s.losses, s.longest_win, s.longest_loss
        ));
    }
}

/// A bar of games played, on standard error (hidden when that is no terminal), for
/// `morris match`.
pub fn games(total: u64) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("games [{bar:30}] {pos}/{len} {msg} ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
