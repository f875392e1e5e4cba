//! Size and CPU time of a compact file's blocks at several zstd levels, from the
//! values of a finished compact file: every `EVERY`-th block (default 5) is packed
//! again as `morris pack` packs it, on one thread, at each level of `LEVELS`
//! (default 3,5,7,9,12).
//!
//! ```text
//! cargo run --release -p morris-builder --example level_sweep -- DIR/standard-8-8+1-0.dtm
//! ```

use morris_builder::pack::{block_log2, stored_block};
use morris_tablebase::compact::{parse_compact_name, BlockCache, CompactFile};
use std::error::Error;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

fn main() -> Result<(), Box<dyn Error>> {
    let every: usize = std::env::var("EVERY").map_or(Ok(5), |v| v.parse())?;
    let levels: Vec<i32> = std::env::var("LEVELS")
        .unwrap_or_else(|_| "3,5,7,9,12".into())
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    for arg in std::env::args().skip(1) {
        let path = Path::new(&arg);
        let name = path
            .file_name()
            .and_then(|s| s.to_str())
            .ok_or("a file name")?;
        let (rules, sector, kind) =
            parse_compact_name(name).ok_or("the name of a compact file (.wdl or .dtm)")?;
        let file = CompactFile::open(path, (rules, sector, kind), Arc::new(BlockCache::new(0)))?;
        let codes = file.raw_codes()?;
        let block = 1usize << block_log2(kind, sector);
        // As `morris pack` stores them before compression.
        let blocks: Vec<Vec<u8>> = codes
            .chunks(block)
            .step_by(every)
            .map(|raw| stored_block(kind, raw))
            .collect();
        let positions: usize = codes.chunks(block).step_by(every).map(<[u8]>::len).sum();
        for &level in &levels {
            let mut z = zstd::bulk::Compressor::new(level)?;
            let clock = Instant::now();
            let packed: Vec<Vec<u8>> = blocks
                .iter()
                .map(|b| z.compress(b))
                .collect::<Result<_, _>>()?;
            let seconds = clock.elapsed().as_secs_f64();
            let bytes: usize = packed.iter().map(Vec::len).sum();
            let mut d = zstd::bulk::Decompressor::new()?;
            let clock = Instant::now();
            for (p, b) in packed.iter().zip(&blocks) {
                if d.decompress(p, b.len())? != *b {
                    return Err("a block did not decompress to itself".into());
                }
            }
            let unpack = clock.elapsed().as_secs_f64();
            println!(
                "{name} level {level:2}: {:.3} bits a position, {:.3} us of CPU a position to pack, {:.4} to unpack",
                bytes as f64 * 8.0 / positions as f64,
                seconds * 1e6 / positions as f64,
                unpack * 1e6 / positions as f64
            );
        }
    }
    Ok(())
}
