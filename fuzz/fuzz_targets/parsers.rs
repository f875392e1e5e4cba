//! Feed arbitrary UTF-8 to every parser of the text formats. No input may panic, and
//! whatever a parser accepts must read back the same from the text the engine writes.
//!
//! Run from the repository root (stable Rust needs RUSTC_BOOTSTRAP=1 for the
//! sanitizer flags):
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run parsers -- -dict=fuzz/parsers.dict -max_total_time=60`

#![no_main]

use libfuzzer_sys::fuzz_target;
use morris_engine::notation::{
    parse_any_setup, parse_move, parse_moves, parse_point, parse_position, parse_sanmill,
    parse_setup, setup_to_sanmill, setup_to_string,
};
use morris_engine::{Position, Variant};

fuzz_target!(|text: &str| {
    if let Ok(p) = parse_point(text) {
        assert_eq!(parse_point(&p.to_string()), Ok(p));
    }
    if let Ok(m) = parse_move(text) {
        assert_eq!(parse_move(&m.to_string()), Ok(m));
    }
    for setup in [
        parse_setup(text),
        parse_sanmill(text),
        parse_any_setup(text),
    ]
    .into_iter()
    .flatten()
    {
        assert_eq!(parse_setup(&setup_to_string(&setup)), Ok(setup));
        assert_eq!(parse_any_setup(&setup.to_string()), Ok(setup));
    }
    for variant in Variant::ALL {
        if let Ok(pos) = parse_position(text, variant) {
            let setup = pos.to_setup();
            assert_eq!(parse_position(&pos.to_string(), variant), Ok(pos));
            assert_eq!(parse_position(&setup_to_sanmill(&setup), variant), Ok(pos));
            // Moves from a parsed position parse and play back too.
            let moves = pos.legal_moves();
            assert_eq!(moves.len() as u64, pos.count_legal_moves());
            let line: Vec<String> = moves.iter().take(4).map(ToString::to_string).collect();
            for (m, text) in moves.iter().zip(&line) {
                assert_eq!(
                    parse_moves(&pos, text),
                    Ok(vec![(*m, pos.play_unchecked(*m))])
                );
            }
        }
        let start = Position::start(variant);
        if let Ok(line) = parse_moves(&start, text) {
            let again: Vec<String> = line.iter().map(|(m, _)| m.to_string()).collect();
            assert_eq!(parse_moves(&start, &again.join(" ")), Ok(line));
        }
    }
});
