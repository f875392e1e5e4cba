//! `morris match`, run as the built binary: reproducible counts, the search against
//! random, the perfect player on a small generated sector, an engine through the
//! protocol, and engines that lose by adjudication.

mod common;

use common::{ok, refused, BIN};
use std::path::Path;
use tempfile::TempDir;

/// The counts of the last line, `score: W wins, D draws, L losses`.
fn score(out: &str) -> (u32, u32, u32) {
    let last = out.lines().last().expect("output");
    let n: Vec<u32> = last
        .strip_prefix("score: ")
        .unwrap_or_else(|| panic!("last line {last:?}"))
        .split(", ")
        .map(|p| p.split(' ').next().unwrap().parse().expect(p))
        .collect();
    (n[0], n[1], n[2])
}

/// The result (`1-0`, `0-1`, `1/2-1/2`) of each game line.
fn results(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with("game "))
        .map(|l| {
            l.split("(black): ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .expect(l)
                .to_string()
        })
        .collect()
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

#[test]
fn a_seeded_match_is_reproducible_and_its_counts_add_up() {
    let args = ["match", "random", "random", "--games", "8", "--seed", "5"];
    let out = ok(&args);
    assert_eq!(out, ok(&args), "the same seed, the same match");
    let other = ok(&["match", "random", "random", "--games", "8", "--seed", "6"]);
    assert_ne!(out, other, "another seed, other games");
    let (w, d, l) = score(&out);
    assert_eq!(w + d + l, 8, "{out}");
    // A is White in the odd games: its wins are those games' 1-0 and the others' 0-1.
    let r = results(&out);
    assert_eq!(r.len(), 8, "{out}");
    let a_won =
        |(i, r): &(usize, &String)| (i % 2 == 0 && *r == "1-0") || (i % 2 == 1 && *r == "0-1");
    let wins = r.iter().enumerate().filter(|x| a_won(x)).count() as u32;
    let draws = r.iter().filter(|r| *r == "1/2-1/2").count() as u32;
    assert_eq!((wins, draws), (w, d), "{out}");
    assert!(
        out.contains("A random: ") && out.contains("B random: "),
        "{out}"
    );
}

#[test]
fn the_search_beats_random() {
    let out = ok(&["match", "search:2", "random", "--games", "20"]);
    let (w, d, l) = score(&out);
    eprintln!("search:2 vs random: {w} wins, {d} draws, {l} losses");
    // Far beyond chance: 15 of 20 has a probability below 2% for an even match.
    assert!(w >= 15 && l <= 2, "{out}");
}

#[test]
fn max_plies_adjudicates_draws_counted_apart() {
    let out = ok(&[
        "match",
        "random",
        "random",
        "--games",
        "2",
        "--max-plies",
        "3",
    ]);
    assert_eq!(score(&out), (0, 2, 0), "{out}");
    assert!(out.contains("draw adjudicated at 3 plies"), "{out}");
    assert!(out.contains("2 draws (2 at the ply limit)"), "{out}");
}

#[test]
fn saved_games_replay_with_show() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("games.txt");
    let out = ok(&[
        "match",
        "search:1",
        "random",
        "--games",
        "3",
        "--save",
        path(&file),
        "--verbose",
    ]);
    let saved = std::fs::read_to_string(&file).unwrap();
    assert_eq!(saved.lines().count(), 3);
    for (line, result) in saved.lines().zip(results(&out)) {
        let (moves, end) = line.split_once('\t').expect("moves, a tab, the result");
        assert!(end.starts_with(&result), "{line}");
        assert!(out.contains(&format!("  moves: {moves}\n")), "{out}");
        let shown = ok(&["show", "--moves", moves]);
        assert!(
            shown.contains("game over") || end.contains("adjudicated"),
            "{line}: {shown}"
        );
    }
}

#[test]
fn openings_start_each_pair_of_games() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("openings.txt");
    std::fs::write(
        &file,
        "# two openings\nd6 d2 f4\n\nWW./.../.../.....W/.../.../BBB w 0 0\n",
    )
    .unwrap();
    let save = dir.path().join("games.txt");
    let out = ok(&[
        "match",
        "search:2",
        "random",
        "--games",
        "4",
        "--openings",
        path(&file),
        "--save",
        path(&save),
    ]);
    let saved = std::fs::read_to_string(&save).unwrap();
    let lines: Vec<&str> = saved.lines().collect();
    // Games 3 and 4 start from the position string, where White wins at once.
    assert!(
        lines[2].ends_with("\tWW./.../.../.....W/.../.../BBB w 0 0"),
        "{saved}"
    );
    assert!(lines[2].starts_with("g4-g7x"), "{saved}");
    assert!(lines[0].starts_with("d6 d2 f4 "), "{saved}");
    assert_eq!(results(&out)[2], "1-0");
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "d6 d6\n").unwrap();
    let e = refused(&["match", "random", "random", "--openings", path(&bad)]);
    assert!(e.contains("bad.txt:1") && e.contains("'d6'"), "{e}");
}

#[test]
fn bad_players_and_missing_tables_are_refused() {
    let e = refused(&["match", "strong", "random"]);
    assert!(e.contains("unknown player 'strong'"), "{e}");
    let e = refused(&["match", "search:0", "random"]);
    assert!(e.contains("search:0"), "{e}");
    let e = refused(&["match", "random", "random", "--option", "Hash"]);
    assert!(e.contains("NAME=VALUE"), "{e}");
    let empty = TempDir::new().unwrap();
    let e = refused(&["match", "perfect", "random", "--tb", path(empty.path())]);
    assert!(
        e.contains("needs the tables") && e.contains("sector"),
        "{e}"
    );
}

/// Random positions of the 3-3 sector, White to move, in our position string (some
/// may be over already: `probe` sorts them out).
fn three_three_positions(n: usize, seed: u64) -> Vec<String> {
    let mut rng = common::Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut cells = ['.'; 24];
        let mut placed = 0;
        while placed < 6 {
            let i = rng.below(24);
            if cells[i] == '.' {
                cells[i] = if placed < 3 { 'W' } else { 'B' };
                placed += 1;
            }
        }
        let mut s = String::new();
        let mut k = 0;
        for (r, len) in [3, 3, 3, 6, 3, 3, 3].into_iter().enumerate() {
            if r > 0 {
                s.push('/');
            }
            s.extend(&cells[k..k + len]);
            k += len;
        }
        out.push(format!("{s} w 0 0"));
    }
    out
}

/// From positions White does not lose, the perfect player as White never loses; from
/// drawn ones it never loses as Black either.
#[test]
fn the_perfect_player_never_loses_what_it_holds() {
    let tb = TempDir::new().unwrap();
    // No flying: the 3-3 sector has draws and wins, not only quick wins.
    ok(&[
        "generate",
        "--variant",
        "no-flying",
        "--sector",
        "3-3",
        "--tb",
        path(tb.path()),
    ]);
    let mut kept = Vec::new();
    for fen in three_three_positions(40, 11) {
        let probe = ok(&[
            "probe",
            "--variant",
            "no-flying",
            "--fen",
            &fen,
            "--tb",
            path(tb.path()),
        ]);
        let value = if probe.starts_with("draw (") {
            "draw"
        } else if probe.starts_with("win") {
            "win"
        } else {
            continue;
        };
        kept.push((fen, value));
        if kept.len() == 8 {
            break;
        }
    }
    assert!(kept.iter().any(|(_, v)| *v == "draw"), "{kept:?}");
    assert!(kept.iter().any(|(_, v)| *v == "win"), "{kept:?}");
    let dir = TempDir::new().unwrap();
    let openings = dir.path().join("openings.txt");
    let lines: Vec<&str> = kept.iter().map(|(f, _)| f.as_str()).collect();
    std::fs::write(&openings, lines.join("\n")).unwrap();
    let games = (2 * kept.len()).to_string();
    let out = ok(&[
        "match",
        "perfect",
        "random",
        "--games",
        &games,
        "--openings",
        path(&openings),
        "--tb",
        path(tb.path()),
        "--max-plies",
        "200",
        "--variant",
        "no-flying",
    ]);
    let r = results(&out);
    for (i, (fen, value)) in kept.iter().enumerate() {
        assert_ne!(
            r[2 * i],
            "0-1",
            "perfect as White lost from {fen} ({value}): {out}"
        );
        if *value == "draw" {
            assert_ne!(
                r[2 * i + 1],
                "1-0",
                "perfect as Black lost from {fen} (draw): {out}"
            );
        }
    }
    let (w, d, l) = score(&out);
    eprintln!("perfect vs random on 3-3: {w} wins, {d} draws, {l} losses");
    assert!(w > l, "{out}");
}

#[test]
fn an_engine_plays_through_the_protocol() {
    let player = format!("uci:{BIN} uci --tb /nonexistent-morris-tables");
    let out = ok(&[
        "match",
        &player,
        "random",
        "--games",
        "2",
        "--movetime",
        "50",
        "--option",
        "Hash=8",
    ]);
    assert!(!out.contains("forfeits"), "{out}");
    let (w, d, l) = score(&out);
    assert_eq!(w + d + l, 2);
    assert!(w >= 1, "{out}");
}

/// Under house rules an engine is told the rules (`setoption name Rules`) and plays
/// them: under per-mill captures its placement closing two mills is answered one
/// capture token at a time and takes two pieces; on the six board it plays whole
/// games.
#[test]
fn an_engine_plays_house_rules_through_the_protocol() {
    let dir = TempDir::new().expect("a temporary directory");
    let save = dir.path().join("games.txt");
    let player = format!("uci:{BIN} uci --tb /nonexistent-morris-tables");
    // White places a7, closing a7-d7-g7 and a7-a4-a1: two of Black's three pieces go.
    let fen = ".WW/.../.../W...../.../BB./W.B w 4 5";
    let out = ok(&[
        "match",
        &player,
        "random",
        "--rules",
        "standard,captures=per-mill",
        "--fen",
        fen,
        "--games",
        "2",
        "--movetime",
        "50",
        "--save",
        path(&save),
    ]);
    assert!(!out.contains("forfeits"), "{out}");
    let games = std::fs::read_to_string(&save).expect("saved games");
    let first = games.split_whitespace().next().expect("a move");
    assert_eq!(first.matches('x').count(), 2, "{games}");
    assert!(first.starts_with("a7x"), "{games}");

    let out = ok(&[
        "match",
        &player,
        "random",
        "--rules",
        "six-mens",
        "--games",
        "2",
        "--movetime",
        "20",
    ]);
    assert!(!out.contains("forfeits"), "{out}");
    let (w, d, l) = score(&out);
    assert_eq!(w + d + l, 2);
}

/// A script that speaks just enough of the protocol, answering `go` with `answer`
/// (or not at all, when it is empty).
fn fake_engine(dir: &Path, name: &str, answer: &str) -> String {
    let file = dir.join(name);
    let go = if answer.is_empty() {
        ":".to_string()
    } else {
        format!("echo '{answer}'")
    };
    std::fs::write(
        &file,
        format!(
            "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name fake'; echo uciok ;;\n    isready) echo readyok ;;\n    go*) {go} ;;\n    quit) exit 0 ;;\n  esac\ndone\n"
        ),
    )
    .unwrap();
    format!("uci:sh {}", file.display())
}

#[test]
fn illegal_and_missing_moves_lose_by_adjudication() {
    let dir = TempDir::new().unwrap();
    for (name, answer, why) in [
        (
            "illegal.sh",
            "bestmove a1-a4",
            "forfeits (illegal move 'a1-a4')",
        ),
        (
            "garbage.sh",
            "bestmove zz",
            "forfeits ('zz' is not a legal move)",
        ),
        ("silent.sh", "", "forfeits (no move within 250 ms)"),
    ] {
        let player = fake_engine(dir.path(), name, answer);
        let out = ok(&[
            "match",
            &player,
            "random",
            "--games",
            "2",
            "--movetime",
            "50",
            "--timeout",
            "200",
        ]);
        assert_eq!(score(&out), (0, 0, 2), "{name}: {out}");
        assert_eq!(out.matches(why).count(), 2, "{name}: {out}");
    }
}
