//! `morris serve` stays fair: a table lookup never waits behind searches, a client
//! that half-closes its side still gets its answer, and a crowd of idle or trickling
//! connections from one address neither keeps a new client waiting nor holds more
//! than its share (`--max-per-client`).

mod serve_util;

use serve_util::{api, exchange, Server, CLIENT_TIMEOUT, START4};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The time the server gives a client to send a request's head (README: 5 s): an idle
/// connection holds its place at least this long unless the server makes room.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// A GET that asks for a search of `time` seconds of the Standard game after `moves`
/// (nine pieces a side: far outside the small tables).
fn search_request(moves: &str, time: u32) -> String {
    format!(
        "GET /api/position?moves={}&time={time} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        serve_util::enc(moves)
    )
}

/// Send each request on its own connection from its own thread; the threads count in
/// `finished` when their answer is in.
fn in_flight(
    server: &Server,
    requests: Vec<String>,
    finished: &Arc<AtomicUsize>,
) -> Vec<std::thread::JoinHandle<u16>> {
    requests
        .into_iter()
        .map(|request| {
            let (addr, finished) = (server.addr, Arc::clone(finished));
            std::thread::spawn(move || {
                let (status, _) = exchange(addr, request.as_bytes());
                finished.fetch_add(1, Ordering::SeqCst);
                status
            })
        })
        .collect()
}

#[test]
fn a_lookup_is_answered_while_the_workers_search() {
    let server = Server::start(serve_util::tables4(), &["--workers", "1"]);
    // The tables are opened on first use: not by the lookup under test.
    assert_eq!(server.json(&api(START4, "")).get("error"), None);
    let finished = Arc::new(AtomicUsize::new(0));
    // Two ten-second searches: one on the only worker, one waiting for it.
    let searches = in_flight(
        &server,
        vec![search_request("", 10), search_request("d6", 10)],
        &finished,
    );
    // Time for both to reach the server (were they late, the lookups below would
    // simply come first, before and after the change alike).
    std::thread::sleep(Duration::from_millis(1500));
    let lookups = [
        (
            api(START4, "a7 b6 d7 f6"),
            200,
            "\"obtained\":\"tablebase\"",
        ),
        (
            api(
                START4,
                "a7 b6 d7 f6 g7xb6 d2 a1 f2 a1-a4 d2-b2 g7-g4 b2-d2 g4-g7xd2",
            ),
            200,
            "\"reason\":\"two-pieces\"",
        ),
        (
            "/api/position?moves=d6+d6".to_string(),
            400,
            "moves: move 2",
        ),
    ];
    for (path, status, part) in lookups {
        let (got, body) = server.get(&path);
        assert_eq!(got, status, "{path}: {body}");
        assert!(body.contains(part), "{path}: {body}");
        assert_eq!(
            finished.load(Ordering::SeqCst),
            0,
            "{path} was answered only after a search had finished"
        );
    }
    // The searches are not waited for: stopping the server ends them.
    drop(server);
    for s in searches {
        let _ = s.join();
    }
}

#[test]
fn a_client_that_half_closes_still_gets_its_answer() {
    let server = Server::start(serve_util::tables4(), &[]);
    let body = format!("{{\"fen\": \"{START4}\", \"moves\": \"a7 b6\"}}");
    let requests = [
        // A lookup on a keep-alive connection, a search, a POST with its body.
        format!(
            "GET {} HTTP/1.1\r\nHost: x\r\n\r\n",
            api(START4, "a7 b6 d7 f6")
        ),
        search_request("d6 d2", 1),
        format!(
            "POST /api/position HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    ];
    for request in requests {
        let mut stream = TcpStream::connect(server.addr).expect("connects");
        stream
            .set_read_timeout(Some(CLIENT_TIMEOUT))
            .expect("timeout set");
        stream.write_all(request.as_bytes()).expect("request sent");
        stream.shutdown(Shutdown::Write).expect("write side closed");
        let mut answer = Vec::new();
        // The server closes once it has answered: the answer is all there is.
        let _ = stream.read_to_end(&mut answer);
        let text = String::from_utf8_lossy(&answer);
        assert!(
            text.starts_with("HTTP/1.1 200 "),
            "{request:?} answered {text:?}"
        );
        let (_, json) = text.split_once("\r\n\r\n").expect("a body");
        let doc: serde_json::Value = serde_json::from_str(json).expect("JSON");
        assert!(doc["position"].is_string(), "{doc}");
    }
}

#[test]
fn hundreds_of_idle_or_trickling_connections_keep_no_one_waiting() {
    let server = Server::start(serve_util::tables4(), &[]);
    let opened = Instant::now();
    // More than the server holds at once, all from this address: half of them silent,
    // half with a head they never finish.
    let crowd: Vec<TcpStream> = (0..600)
        .map(|i| {
            let mut s = TcpStream::connect(server.addr).expect("connects");
            if i % 2 == 1 {
                // The kernel takes it even while the server does not accept.
                s.write_all(b"GET /api/position HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                    .expect("written");
            }
            s
        })
        .collect();
    let (status, body) = server.get(&api(START4, "a7"));
    let waited = opened.elapsed();
    assert_eq!(status, 200, "{body}");
    // Without room made for it, the newcomer waits until the head timeout closes
    // the first of the crowd: never less than that timeout after it was opened.
    assert!(
        waited < HEAD_TIMEOUT,
        "the new client waited {waited:?}, as long as the idle ones may stay"
    );
    drop(crowd);
}

#[test]
fn one_address_gets_at_most_max_per_client_connections() {
    let empty = tempfile::tempdir().expect("a temporary directory");
    let server = Server::start(
        empty.path(),
        &["--workers", "1", "--max-time", "2", "--max-per-client", "2"],
    );
    // Two idle connections: a third from the same address takes the place of the
    // oldest, which the server closes.
    let mut oldest = TcpStream::connect(server.addr).expect("connects");
    let second = TcpStream::connect(server.addr).expect("connects");
    std::thread::sleep(Duration::from_millis(200));
    let (status, body) = server.get("/api/position?time=0.1");
    assert_eq!(status, 200, "{body}");
    oldest
        .set_read_timeout(Some(CLIENT_TIMEOUT))
        .expect("timeout set");
    let mut byte = [0u8; 1];
    assert!(
        matches!(oldest.read(&mut byte), Ok(0)),
        "the oldest idle connection was not closed"
    );
    drop(second);
    // Two connections whose requests are being answered: a third is refused, with a
    // message that says why.
    let finished = Arc::new(AtomicUsize::new(0));
    let busy = in_flight(
        &server,
        vec![search_request("", 2), search_request("d6", 2)],
        &finished,
    );
    std::thread::sleep(Duration::from_millis(700));
    let (status, body) = server.get("/api/position?time=0.1");
    assert_eq!(status, 503, "{body}");
    assert!(
        body.contains("too many connections from 127.0.0.1") && body.contains("2 at once"),
        "{body}"
    );
    for b in busy {
        assert_eq!(b.join().expect("a client"), 200);
    }
    // Once they are answered, the address is served again.
    assert_eq!(server.get("/api/position?time=0.1").0, 200);
}

#[test]
fn serve_help_names_the_per_client_limit() {
    let out = std::process::Command::new(serve_util::BIN)
        .args(["serve", "--help"])
        .output()
        .expect("morris serve --help runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("--max-per-client <N>"), "{text}");
}
