//! `morris serve`: a local web server with the explorer page and the JSON API over
//! whatever tables are present (`api` answers, `http` serves).

mod api;
mod conns;
mod http;

use crate::args::{hash_mb, seconds};
use crate::tb::TbDir;
use anyhow::Context as _;
use std::net::SocketAddr;
use std::sync::Arc;

/// Serve the explorer page and the JSON API.
#[derive(clap::Args)]
#[command(
    after_help = "The page is at the printed URL (modes: explore, play against the engine, review,\n\
train); the API at /api/position, /api/review, /api/puzzle and /api/puzzle/sectors\n\
(see README.md). Tables are opened on the first request; positions they do not cover\n\
are searched within each request's time limit and labelled estimates. Answers the\n\
tables give alone (every move's position covered, a review of up to 200 plies) never\n\
wait behind searches.\n\n\
Examples:\n  morris serve\n  morris serve --tb /data/tb --addr 127.0.0.1:9000\n  \
curl 'http://127.0.0.1:8080/api/position?moves=d6+d2&strategy=perfect'\n  \
curl 'http://127.0.0.1:8080/api/review?moves=d6+d2+f4'\n  \
curl 'http://127.0.0.1:8080/api/puzzle?sector=3-4&goal=win&seed=7'"
)]
pub struct Args {
    #[command(flatten)]
    tb: TbDir,

    /// Address to listen on (port 0: any free port).
    #[arg(long, value_name = "IP:PORT", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,

    /// Search time of a request that gives none, in seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 1.0,
        allow_hyphen_values = true
    )]
    time: f64,

    /// The most search time a request may ask for, in seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 10.0,
        allow_hyphen_values = true
    )]
    max_time: f64,

    /// Searches answered at once, and as many table lookups beside them [default: one
    /// per core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    workers: Option<u16>,

    /// Connections one client address may hold at once (1 to 512): a newcomer beyond
    /// takes the place of that address's oldest idle one, or is refused with 503 while
    /// every one has an answer under way.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 64,
        value_parser = clap::value_parser!(u16).range(1..=512)
    )]
    max_per_client: u16,

    /// Transposition table of each request's search, in MiB (1 to 8192).
    #[arg(long, value_name = "MB", default_value_t = 16, value_parser = hash_mb)]
    hash: usize,
}

/// Run the command: serve until killed.
///
/// # Errors
/// Bad limits, or an address that cannot be listened on.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let time = seconds("--time", args.time)?;
    let max_time = seconds("--max-time", args.max_time)?;
    if time > max_time {
        return Err(crate::args::InputError(format!(
            "--time {} is above --max-time {}",
            args.time, args.max_time
        ))
        .into());
    }
    let workers = args.workers.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let listener = std::net::TcpListener::bind(args.addr)
        .with_context(|| format!("cannot listen on {}", args.addr))?;
    let addr = listener
        .local_addr()
        .context("cannot read the bound address")?;
    let tb = args.tb.clone();
    let dir = tb.path();
    let ctx = api::Context::new(move || tb.open(), time, max_time, args.hash);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the server's threads")?;
    outln!("morris explorer at http://{addr}/");
    outln!(
        "tablebases: {} (opened on first use); {workers} search worker(s) and as many for table lookups, search time {} s a request (at most {} s); at most {} connections a client address; Ctrl-C stops",
        dir.display(),
        args.time,
        args.max_time,
        args.max_per_client
    );
    // Whoever started the server (a script, a test) waits for the URL.
    if let Err(e) = std::io::Write::flush(&mut std::io::stdout()) {
        crate::output_failed(&e);
    }
    let server = Arc::new(http::Server::new(
        ctx,
        workers,
        usize::from(args.max_per_client),
    ));
    runtime
        .block_on(server.run(listener))
        .context("the server stopped")
}
