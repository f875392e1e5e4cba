//! A bounded load test of `morris serve` on 127.0.0.1: a fixed number of API requests
//! over keep-alive connections from several client threads, every answer checked;
//! prints requests per second and the p50/p99 latency (`cargo test --release --test
//! serve_load -- --nocapture`). It asserts correctness only: figures are measured,
//! never a pass condition.

mod serve_util;

use serve_util::{api, KeepAlive, Server, START4};
use std::time::{Duration, Instant};

/// Client threads, each on its own keep-alive connection.
const CLIENTS: usize = 4;
/// Requests each client sends.
const REQUESTS: usize = 300;

#[test]
fn many_concurrent_requests_are_all_answered() {
    let server = Server::start(serve_util::tables4(), &[]);
    // Positions of the four-piece game: placing, capturing, sliding and flying.
    let paths: Vec<String> = [
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
    .collect();
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
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    println!(
        "serve load: {} requests from {CLIENTS} keep-alive clients in {:.2} s: {:.0} requests/s, p50 {:.2} ms, p99 {:.2} ms",
        latencies.len(),
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        at(0.50).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
    );
    assert_eq!(latencies.len(), CLIENTS * REQUESTS);
}
