//! The HTTP side of `morris serve`: hyper over tokio, with every resource a client can
//! take bounded.
//!
//! - Connections: at most [`MAX_CONNECTIONS`](super::conns::MAX_CONNECTIONS) at once and `max_per_client` from one
//!   address, a newcomer taking the place of an idle one (see `super::conns`); each is
//!   closed after [`CONNECTION_LIFETIME`]; a request head must arrive within
//!   [`HEAD_TIMEOUT`] and fit in [`MAX_HEAD`] bytes (hyper answers 431 beyond), a URL
//!   in [`MAX_URL`]. A client may close its sending side once its request is out: the
//!   answer still comes.
//! - Bodies: at most [`MAX_BODY`] bytes, arriving within [`BODY_TIMEOUT`].
//! - Work: the API runs on blocking threads in two lanes of `workers` each, so that a
//!   lookup never waits behind searches: every request first takes a lookup worker,
//!   which answers it at once when the answer needs no search (a refused query, a
//!   finished game, a position whose moves all lead where the tables reach, a
//!   review) and otherwise hands it to a search worker (a search, a puzzle's
//!   sampling). A request that waits longer than
//!   [`QUEUE_TIMEOUT`] for either gets 503. Each answer's search is cut at the
//!   request's time limit (see `super::api`).
//!
//! A panic in an answer fails that request with 500; the server goes on.

use super::api::{self, ApiError, Context, Query};
use super::conns::{Refused, Registry};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future as _;
use std::io::Write as _;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

/// A connection is closed after this long, whatever it does.
pub const CONNECTION_LIFETIME: Duration = Duration::from_secs(120);
/// The time a client has to send a request's head.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// The most bytes of a request head (hyper's read buffer).
pub const MAX_HEAD: usize = 16 * 1024;
/// The longest URL (path and query).
pub const MAX_URL: usize = 8 * 1024;
/// The largest request body.
pub const MAX_BODY: usize = 16 * 1024;
/// The time a client has to send a request's body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a request waits for a free worker (of each lane).
pub const QUEUE_TIMEOUT: Duration = Duration::from_secs(15);
/// Refused connections being told why at once; beyond, they are closed unanswered.
const REFUSALS: usize = 64;
/// How long a refused connection is given to take its answer.
const REFUSAL_LINGER: Duration = Duration::from_secs(1);

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// What ends a wait of a connection's task.
enum Event {
    /// The connection is done, or its lifetime is.
    Closed,
    /// It is to make room for a newcomer.
    Evicted,
}

/// What the connections share.
pub struct Server {
    ctx: Arc<Context>,
    /// Answers that need no search.
    lookups: Arc<Semaphore>,
    /// Answers that search.
    searches: Arc<Semaphore>,
    conns: Arc<Registry>,
    refusals: Arc<Semaphore>,
}

impl Server {
    /// A server answering from `ctx` on at most `workers` threads of each lane at
    /// once, admitting at most `max_per_client` connections from one address.
    pub fn new(ctx: Context, workers: usize, max_per_client: usize) -> Server {
        Server {
            ctx: Arc::new(ctx),
            lookups: Arc::new(Semaphore::new(workers.max(1))),
            searches: Arc::new(Semaphore::new(workers.max(1))),
            conns: Registry::new(max_per_client),
            refusals: Arc::new(Semaphore::new(REFUSALS)),
        }
    }

    /// Accept connections forever.
    ///
    /// # Errors
    /// The listener cannot be handed to the runtime.
    pub async fn run(self: Arc<Self>, listener: std::net::TcpListener) -> std::io::Result<()> {
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: wait for some to close
                    // rather than spin. A log that cannot be written is no reason
                    // to stop serving.
                    let _ = writeln!(std::io::stderr(), "serve: cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let guard = match self.conns.admit(peer.ip()).await {
                Ok(guard) => guard,
                Err(refused) => {
                    self.refuse(stream, &refused);
                    continue;
                }
            };
            let server = Arc::clone(&self);
            tokio::spawn(async move {
                let slot = Arc::clone(guard.slot());
                let of_service = Arc::clone(&slot);
                let service = hyper::service::service_fn(move |req| {
                    let (server, slot) = (Arc::clone(&server), Arc::clone(&of_service));
                    async move {
                        let _answering = slot.answering();
                        Ok::<_, Infallible>(server.handle(req).await)
                    }
                });
                let conn = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEAD_TIMEOUT)
                    .max_buf_size(MAX_HEAD)
                    // A client that shuts its sending side after the request still
                    // waits for the answer.
                    .half_close(true)
                    .serve_connection(TokioIo::new(stream), service);
                let mut conn = std::pin::pin!(conn);
                let mut lifetime = std::pin::pin!(tokio::time::sleep(CONNECTION_LIFETIME));
                let mut evicted = std::pin::pin!(slot.evicted());
                let mut told = false;
                loop {
                    // The connection first: an answer that is ready is written before
                    // the connection may be dropped.
                    let event = std::future::poll_fn(|cx| {
                        if conn.as_mut().poll(cx).is_ready() {
                            // Errors here are the client's (a reset, a malformed
                            // request hyper answered itself): nothing to do but close.
                            Poll::Ready(Event::Closed)
                        } else if lifetime.as_mut().poll(cx).is_ready() {
                            Poll::Ready(Event::Closed)
                        } else if !told && evicted.as_mut().poll(cx).is_ready() {
                            Poll::Ready(Event::Evicted)
                        } else {
                            Poll::Pending
                        }
                    })
                    .await;
                    match event {
                        Event::Closed => break,
                        Event::Evicted => {
                            told = true;
                            // Idle: closed now. Answering: closed after the answer.
                            conn.as_mut().graceful_shutdown();
                            if !slot.busy() {
                                break;
                            }
                        }
                    }
                }
                drop(guard);
            });
        }
    }

    /// Tell a refused connection why (503) and close it, on a task of its own: a
    /// short answer that fits the socket's buffer, then a moment for the client to
    /// read it before the close (closing with its request unread would reset the
    /// connection and may discard the answer).
    fn refuse(&self, mut stream: TcpStream, refused: &Refused) {
        let Ok(permit) = Arc::clone(&self.refusals).try_acquire_owned() else {
            return;
        };
        let body = serde_json::json!({
            "error": format!(
                "too many connections from {}: at most {} at once (--max-per-client), each with an answer under way; try again when one is done",
                refused.ip, refused.limit
            )
        })
        .to_string();
        let answer = format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\ncache-control: no-store\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        tokio::spawn(async move {
            let _ = tokio::time::timeout(REFUSAL_LINGER, async {
                stream.write_all(answer.as_bytes()).await?;
                stream.shutdown().await?;
                let mut sink = [0u8; 1024];
                while stream.read(&mut sink).await? > 0 {}
                Ok::<_, std::io::Error>(())
            })
            .await;
            drop(permit);
        });
    }

    async fn handle(&self, req: Request<Incoming>) -> Response<Full<Bytes>> {
        let url_len = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
        if url_len > MAX_URL {
            return error(ApiError {
                status: 414,
                message: format!("URL: {url_len} bytes, more than the {MAX_URL} allowed"),
            });
        }
        let path = req.uri().path().to_string();
        let method = req.method().clone();
        let asset = |body: &'static str, kind: &'static str| {
            let mut r = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
            r.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(kind));
            r
        };
        if let Some(endpoint) = api::Endpoint::of_path(&path) {
            return match method {
                Method::GET => match Query::from_url(endpoint, req.uri().query().unwrap_or("")) {
                    Ok(q) => self.answer(q).await,
                    Err(e) => error(e),
                },
                Method::POST => match read_body(req.into_body()).await {
                    Ok(body) => match Query::from_json(endpoint, &body) {
                        Ok(q) => self.answer(q).await,
                        Err(e) => error(e),
                    },
                    Err(e) => error(e),
                },
                _ => not_allowed("GET, POST"),
            };
        }
        match (path.as_str(), method) {
            ("/", Method::GET) => asset(INDEX_HTML, "text/html; charset=utf-8"),
            ("/app.js", Method::GET) => asset(APP_JS, "text/javascript; charset=utf-8"),
            ("/style.css", Method::GET) => asset(STYLE_CSS, "text/css; charset=utf-8"),
            ("/" | "/app.js" | "/style.css", _) => not_allowed("GET"),
            _ => error(ApiError {
                status: 404,
                message: format!(
                    "no such page '{}' (the explorer is at /, the API at /api/position, /api/review, /api/puzzle and /api/puzzle/sectors)",
                    path.chars().take(80).collect::<String>()
                ),
            }),
        }
    }

    /// Answer a query on a worker thread: a lookup worker, which hands the query on
    /// to a search worker when its answer needs a search.
    async fn answer(&self, q: Query) -> Response<Full<Bytes>> {
        let Some(lookup) = worker(&self.lookups).await else {
            return error(ApiError {
                status: 503,
                message: "busy: every lookup worker is taken, try again".into(),
            });
        };
        let ctx = Arc::clone(&self.ctx);
        let work = tokio::task::spawn_blocking(move || {
            // Handed on boxed: a query is a few hundred bytes.
            let answer = if api::needs_search(&q, &ctx) {
                Err(Box::new(q))
            } else {
                Ok(api::answer(&q, &ctx))
            };
            drop(lookup);
            answer
        });
        let q = match work.await {
            Ok(Ok(answer)) => return respond(answer),
            Ok(Err(q)) => q,
            Err(_) => return failed(),
        };
        let Some(search) = worker(&self.searches).await else {
            return error(ApiError {
                status: 503,
                message: "busy: every search worker is taken, try again".into(),
            });
        };
        let ctx = Arc::clone(&self.ctx);
        let work = tokio::task::spawn_blocking(move || {
            let answer = api::answer(&q, &ctx);
            drop(search);
            answer
        });
        match work.await {
            Ok(answer) => respond(answer),
            Err(_) => failed(),
        }
    }
}

/// A worker of a lane, waiting at most [`QUEUE_TIMEOUT`] for one.
async fn worker(lane: &Arc<Semaphore>) -> Option<tokio::sync::OwnedSemaphorePermit> {
    match tokio::time::timeout(QUEUE_TIMEOUT, Arc::clone(lane).acquire_owned()).await {
        Ok(Ok(permit)) => Some(permit),
        _ => None,
    }
}

fn respond(answer: Result<serde_json::Value, ApiError>) -> Response<Full<Bytes>> {
    match answer {
        Ok(doc) => json_response(StatusCode::OK, &doc),
        Err(e) => error(e),
    }
}

/// An answer that panicked.
fn failed() -> Response<Full<Bytes>> {
    error(ApiError::internal(
        "internal error: the answer failed (see the server's log)",
    ))
}

/// A request body, at most [`MAX_BODY`] bytes within [`BODY_TIMEOUT`].
async fn read_body(body: Incoming) -> Result<Bytes, ApiError> {
    match tokio::time::timeout(BODY_TIMEOUT, Limited::new(body, MAX_BODY).collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(ApiError {
            status: 413,
            message: format!("body: more than the {MAX_BODY} bytes allowed"),
        }),
        Ok(Err(e)) => Err(ApiError::bad(format!("body: {e}"))),
        Err(_) => Err(ApiError {
            status: 408,
            message: format!("body: not received within {} s", BODY_TIMEOUT.as_secs()),
        }),
    }
}

fn json_response(status: StatusCode, doc: &serde_json::Value) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(doc.to_string())));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn error(e: ApiError) -> Response<Full<Bytes>> {
    let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_response(status, &serde_json::json!({ "error": e.message }))
}

fn not_allowed(allow: &'static str) -> Response<Full<Bytes>> {
    let mut r = error(ApiError {
        status: 405,
        message: format!("method not allowed here (allowed: {allow})"),
    });
    r.headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    r
}
