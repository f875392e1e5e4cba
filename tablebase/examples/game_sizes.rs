//! The size of a whole game on a 24-point board (the nine or twelve board), sector by
//! sector, for any number of pieces a side up to 12: positions up to the 16 symmetries,
//! the working memory of each movement pair by the generator's model (4 bytes a
//! position of the pair, 2 bytes a position of the sectors its captures reach) and the
//! raw files' bytes (2 a position). It plans games the tables do not build yet, such
//! as Twelve Men's Morris with 12 pieces a side.
//!
//! ```sh
//! cargo run --release -p morris-tablebase --example game_sizes -- 12
//! ```

use morris_engine::Board;

use morris_tablebase::index::orbit_count;
use morris_tablebase::PlacementSector;

const GIB: f64 = (1u64 << 30) as f64;

fn main() {
    let pieces: usize = match std::env::args().nth(1).map(|a| a.parse()) {
        None => 12,
        Some(Ok(n)) if (3..=12).contains(&n) => n,
        Some(_) => {
            eprintln!("usage: game_sizes [PIECES]   (3 to 12 pieces a side; default 12)");
            std::process::exit(2);
        }
    };
    let size = |us: usize, them: usize| orbit_count(Board::Nine, us, them);
    println!("movement pairs, {pieces} pieces a side (positions up to symmetry)");
    println!(
        "{:>9} {:>16} {:>12} {:>12}",
        "pair", "positions", "memory GiB", "raw GiB"
    );
    let (mut movement, mut largest) = (0u64, (0u64, String::new()));
    for total in 6..=2 * pieces {
        for a in 3..=pieces {
            let b = total - a;
            if b < a || b > pieces || a + b > 24 {
                continue;
            }
            let pair = if a == b {
                size(a, b)
            } else {
                size(a, b) + size(b, a)
            };
            // Captures lead to the sector of the opponent to move, one piece fewer.
            let reached = |mover: usize, victim: usize| {
                if victim > 3 {
                    size(victim - 1, mover)
                } else {
                    0
                }
            };
            let copies = if a == b {
                reached(a, b)
            } else {
                reached(a, b) + reached(b, a)
            };
            let memory = (4 * pair + 2 * copies) as f64 / GIB;
            let name = if a == b {
                format!("{a}-{b}")
            } else {
                format!("{a}-{b}+{b}-{a}")
            };
            println!(
                "{name:>9} {pair:>16} {memory:>12.2} {:>12.2}",
                (2 * pair) as f64 / GIB
            );
            movement += pair;
            if 4 * pair + 2 * copies > largest.0 {
                largest = (4 * pair + 2 * copies, name);
            }
        }
    }
    // Placement sectors, counted as `PlacementSector::all` enumerates them.
    println!();
    println!("placement sectors by pieces in hand");
    println!(
        "{:>9} {:>16} {:>12} {:>12}",
        "in hand", "positions", "sectors", "raw GiB"
    );
    // By pieces in hand: positions and sectors.
    let mut by_hand = vec![(0u64, 0usize); 2 * pieces + 1];
    let mut largest_placement = (0u64, String::new(), 0u64);
    for (us, them, us_hand, them_hand) in PlacementSector::counts(pieces as u8) {
        let (us, them) = (usize::from(us), usize::from(them));
        let n = size(us, them);
        if n == 0 {
            continue;
        }
        let row = &mut by_hand[usize::from(us_hand + them_hand)];
        *row = (row.0 + n, row.1 + 1);
        // The pass holds its output and the sectors one placement reaches (the
        // opponent to move: with and without a capture), 2 bytes a position each.
        let after = size(them, us + 1) + if them > 0 { size(them - 1, us + 1) } else { 0 };
        let memory = 2 * (n + after);
        if memory > largest_placement.0 {
            largest_placement = (memory, format!("{us}-{them}+{us_hand}-{them_hand}"), n);
        }
    }
    for (in_hand, &(positions, sectors)) in by_hand.iter().enumerate().skip(1) {
        println!(
            "{in_hand:>9} {positions:>16} {sectors:>12} {:>12.2}",
            (2 * positions) as f64 / GIB
        );
    }
    let placement: u64 = by_hand.iter().map(|row| row.0).sum();
    println!();
    println!("movement: {movement} positions");
    println!("placement: {placement} positions");
    println!("total: {} positions", movement + placement);
    println!(
        "largest working set: {} ({:.2} GiB)",
        largest.1,
        largest.0 as f64 / GIB
    );
    println!(
        "largest placement sector: {} ({} positions, {:.2} GiB with its successors)",
        largest_placement.1,
        largest_placement.2,
        largest_placement.0 as f64 / GIB
    );
}
