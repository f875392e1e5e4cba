//! Bounded load tests of `morris serve` on 127.0.0.1, every answer checked, printing
//! their figures (`cargo test --release --test serve_load -- --nocapture`): a fixed
//! number of table lookups over keep-alive connections from several client threads
//! (requests per second, p50/p99 latency), and the latency of lookups while clients
//! keep every worker busy with long searches. They assert correctness only: figures
//! are measured, never a pass condition. The two run one after the other, so that
//! neither measures the other's load.

mod serve_util;

use serve_util::{api, KeepAlive, Server, START4};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Client threads, each on its own keep-alive connection.
const CLIENTS: usize = 4;
/// Requests each client sends.
const REQUESTS: usize = 300;
/// Clients searching at once in the second test, each one `time=10` search after another.
const SEARCHERS: usize = 8;
/// Lookups sent one after another while they search.
const LOOKUPS: usize = 1000;
/// The most the second test spends on its lookups (a server that makes lookups wait
/// for searches answers only a few of them in this time).
const LOOKUP_PHASE: Duration = Duration::from_secs(40);

/// One test at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// Positions of the four-piece game: placing, capturing, sliding and flying.
fn table_paths() -> Vec<String> {
    [
        "",
        "a7",
        "a7 b6 d7 f6",
        "a7 b6 d7 f6 g7xb6",
        "a7 b6 d7 f6 g7xb6 d2 a1",
        "a7 b6 d7 f6 g7xb6 d2 a1 f2 a1-a4 d2-b2",
        "a7 b6 d7 f6 g7xb6 d2 a1 f2 a1-a4 d2-b2 g7-g4 b2-d2",
    ]
    .iter()
    .map(|moves| api(START4, moves))
    .collect()
}

/// The latency at quantile `q` of sorted latencies, in milliseconds.
fn at(sorted: &[Duration], q: f64) -> f64 {
    let i = ((sorted.len() as f64 * q) as usize).min(sorted.len() - 1);
    sorted[i].as_secs_f64() * 1e3
}

#[test]
fn many_concurrent_requests_are_all_answered() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let server = Server::start(serve_util::tables4(), &[]);
    let paths = table_paths();
    // The answer each must get, asked once before the load.
    let expected: Vec<String> = paths
        .iter()
        .map(|p| server.json(p)["position"].to_string())
        .collect();
    let clock = Instant::now();
    let threads: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (addr, paths, expected) = (server.addr, paths.clone(), expected.clone());
            std::thread::spawn(move || {
                let mut conn = KeepAlive::new(addr);
                (0..REQUESTS)
                    .map(|i| {
                        let k = (c * 7 + i) % paths.len();
                        let sent = Instant::now();
                        let (status, body) = conn.get(&paths[k]);
                        let took = sent.elapsed();
                        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
                        let doc: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
                        assert_eq!(doc["position"].to_string(), expected[k]);
                        took
                    })
                    .collect::<Vec<Duration>>()
            })
        })
        .collect();
    let mut latencies: Vec<Duration> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("a client"))
        .collect();
    let elapsed = clock.elapsed();
    latencies.sort();
    println!(
        "serve load: {} requests from {CLIENTS} keep-alive clients in {:.2} s: {:.0} requests/s, p50 {:.2} ms, p99 {:.2} ms",
        latencies.len(),
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        at(&latencies, 0.50),
        at(&latencies, 0.99),
    );
    assert_eq!(latencies.len(), CLIENTS * REQUESTS);
}

/// One request on a new connection; the status, or `None` once the server is gone.
fn try_exchange(addr: SocketAddr, request: &[u8]) -> Option<u16> {
    let mut stream = TcpStream::connect(addr).ok()?;
    stream
        .set_read_timeout(Some(serve_util::CLIENT_TIMEOUT))
        .ok()?;
    stream.write_all(request).ok()?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).ok()?;
    String::from_utf8_lossy(&answer)
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[test]
fn lookups_are_answered_while_clients_search() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let server = Server::start(serve_util::tables4(), &[]);
    let paths = table_paths();
    let expected: Vec<String> = paths
        .iter()
        .map(|p| server.json(p)["position"].to_string())
        .collect();
    // Searches of the nine-piece game, which the tables do not cover, of ten seconds
    // each: more of them than there are workers.
    let stop = Arc::new(AtomicBool::new(false));
    let searchers: Vec<_> = (0..SEARCHERS)
        .map(|c| {
            let (addr, stop) = (server.addr, Arc::clone(&stop));
            let moves = ["", "d6", "d6 d2", "a1", "a1 g7", "d6 f4", "b4", "b4 f4"][c % 8];
            let request = format!(
                "GET /api/position?moves={}&time=10 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                serve_util::enc(moves)
            );
            std::thread::spawn(move || {
                let mut statuses = Vec::new();
                while !stop.load(Ordering::SeqCst) {
                    match try_exchange(addr, request.as_bytes()) {
                        Some(status) => statuses.push(status),
                        None => break,
                    }
                }
                statuses
            })
        })
        .collect();
    // Time for the searches to reach the workers.
    std::thread::sleep(Duration::from_secs(1));
    let mut conn = KeepAlive::new(server.addr);
    let clock = Instant::now();
    let mut latencies = Vec::new();
    let mut refused = Vec::new();
    for i in 0..LOOKUPS {
        if clock.elapsed() > LOOKUP_PHASE {
            break;
        }
        let k = i % paths.len();
        let sent = Instant::now();
        let (status, body) = conn.get(&paths[k]);
        latencies.push(sent.elapsed());
        if status == 200 {
            let doc: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
            assert_eq!(doc["position"].to_string(), expected[k]);
        } else {
            refused.push(status);
        }
    }
    let elapsed = clock.elapsed();
    stop.store(true, Ordering::SeqCst);
    latencies.sort();
    println!(
        "serve load: {} lookups (one client, one after another) in {:.2} s while {SEARCHERS} clients ran time=10 searches: p50 {:.2} ms, p99 {:.2} ms, {} not answered 200 {:?}",
        latencies.len(),
        elapsed.as_secs_f64(),
        at(&latencies, 0.50),
        at(&latencies, 0.99),
        refused.len(),
        refused.iter().take(5).collect::<Vec<_>>(),
    );
    // The searches are not waited for: stopping the server ends them.
    drop(conn);
    drop(server);
    for s in searchers {
        let statuses = s.join().expect("a searching client");
        // A search that waited too long for a worker is told the server is busy.
        assert!(
            statuses.iter().all(|&s| s == 200 || s == 503),
            "{statuses:?}"
        );
    }
    assert_eq!(refused, Vec::<u16>::new(), "lookups not answered 200");
    assert_eq!(latencies.len(), LOOKUPS);
}
