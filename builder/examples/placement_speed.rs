//! Speed of the placement pass on given sectors, with every successor "lost in 0"
//! (the work per position does not depend on the values read; the values are written
//! out so that the reads touch real memory, as with real tables).
//!
//! ```text
//! THREADS=1,2 cargo run --release -p morris-builder --example placement_speed -- 4-5+1-0
//! ```

use morris_engine::Board;

use morris_builder::{solve_placement, Silent};
use morris_engine::Variant;
use morris_tablebase::{PlacementSector, SectorIndex, SuccessorSector, Value};
use std::error::Error;
use std::time::Instant;

fn main() -> Result<(), Box<dyn Error>> {
    let threads: Vec<usize> = std::env::var("THREADS")
        .unwrap_or_else(|_| "1".into())
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    for text in std::env::args().skip(1) {
        let sector: PlacementSector = text.parse()?;
        let clock = Instant::now();
        let successors: Vec<(SuccessorSector, Vec<u16>)> = sector
            .successors(Variant::Standard)
            .into_iter()
            .map(|next| {
                let (us, them) = match next {
                    SuccessorSector::Placement(p) => (p.us, p.them),
                    SuccessorSector::Movement(m) => (m.us, m.them),
                };
                let size = SectorIndex::get(Board::Nine, usize::from(us), usize::from(them)).size();
                (next, vec![Value::loss(0).0; size as usize])
            })
            .collect();
        let index = SectorIndex::get(
            Board::Nine,
            usize::from(sector.us),
            usize::from(sector.them),
        );
        println!(
            "{sector}: {} positions, indices built in {:.1} s",
            index.size(),
            clock.elapsed().as_secs_f64()
        );
        let lookup = |next: SuccessorSector| {
            successors
                .iter()
                .find(|(s, _)| *s == next)
                .map(|(_, v)| v.as_slice())
        };
        for &n in &threads {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build()?;
            let clock = Instant::now();
            let values =
                pool.install(|| solve_placement(Variant::Standard, sector, &lookup, &Silent))?;
            let seconds = clock.elapsed().as_secs_f64();
            println!(
                "{sector}: {n} threads, {seconds:.2} s, {:.2} M positions/s",
                values.len() as f64 / seconds / 1e6
            );
        }
    }
    Ok(())
}
