//! The HTTP side of `morris serve`: hyper over tokio, with every resource a client can
//! take bounded.
//!
//! - Connections: at most [`MAX_CONNECTIONS`] at once, each closed after
//!   [`CONNECTION_LIFETIME`]; a request head must arrive within [`HEAD_TIMEOUT`] and
//!   fit in [`MAX_HEAD`] bytes (hyper answers 431 beyond), a URL in [`MAX_URL`].
//! - Bodies: at most [`MAX_BODY`] bytes, arriving within [`BODY_TIMEOUT`].
//! - Work: the API runs on blocking threads, at most `workers` at once; a request that
//!   waits longer than [`QUEUE_TIMEOUT`] for one gets 503. Each answer's search is cut
//!   at the request's time limit (see `super::api`).
//!
//! A panic in an answer fails that request with 500; the server goes on.

use super::api::{self, ApiError, Context, Query};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::io::Write as _;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// Most connections open at once; more wait in the listen queue.
pub const MAX_CONNECTIONS: usize = 512;
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
/// How long a request waits for a free worker.
pub const QUEUE_TIMEOUT: Duration = Duration::from_secs(15);

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// What the connections share.
pub struct Server {
    ctx: Arc<Context>,
    workers: Arc<Semaphore>,
}

impl Server {
    /// A server answering from `ctx` on at most `workers` threads at once.
    pub fn new(ctx: Context, workers: usize) -> Server {
        Server {
            ctx: Arc::new(ctx),
            workers: Arc::new(Semaphore::new(workers.max(1))),
        }
    }

    /// Accept connections forever.
    ///
    /// # Errors
    /// The listener cannot be handed to the runtime.
    pub async fn run(self: Arc<Self>, listener: std::net::TcpListener) -> std::io::Result<()> {
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let connections = Arc::new(Semaphore::new(MAX_CONNECTIONS));
        loop {
            let Ok(permit) = Arc::clone(&connections).acquire_owned().await else {
                // The semaphore is never closed.
                continue;
            };
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: wait for some to close
                    // rather than spin. A log that cannot be written is no reason
                    // to stop serving.
                    let _ = writeln!(std::io::stderr(), "serve: cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let server = Arc::clone(&self);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req| {
                    let server = Arc::clone(&server);
                    async move { Ok::<_, Infallible>(server.handle(req).await) }
                });
                let conn = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEAD_TIMEOUT)
                    .max_buf_size(MAX_HEAD)
                    .serve_connection(TokioIo::new(stream), service);
                // Errors here are the client's (a reset, a malformed request hyper
                // answered itself): nothing to do but close.
                let _ = tokio::time::timeout(CONNECTION_LIFETIME, conn).await;
                drop(permit);
            });
        }
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
        match (path.as_str(), method) {
            ("/", Method::GET) => asset(INDEX_HTML, "text/html; charset=utf-8"),
            ("/app.js", Method::GET) => asset(APP_JS, "text/javascript; charset=utf-8"),
            ("/style.css", Method::GET) => asset(STYLE_CSS, "text/css; charset=utf-8"),
            ("/api/position", Method::GET) => {
                match Query::from_url(req.uri().query().unwrap_or("")) {
                    Ok(q) => self.answer(q).await,
                    Err(e) => error(e),
                }
            }
            ("/api/position", Method::POST) => match read_body(req.into_body()).await {
                Ok(body) => match Query::from_json(&body) {
                    Ok(q) => self.answer(q).await,
                    Err(e) => error(e),
                },
                Err(e) => error(e),
            },
            ("/" | "/app.js" | "/style.css", _) => not_allowed("GET"),
            ("/api/position", _) => not_allowed("GET, POST"),
            _ => error(ApiError {
                status: 404,
                message: format!(
                    "no such page '{}' (the explorer is at /, the API at /api/position)",
                    path.chars().take(80).collect::<String>()
                ),
            }),
        }
    }

    /// Answer a query on a worker thread, waiting at most [`QUEUE_TIMEOUT`] for one.
    async fn answer(&self, q: Query) -> Response<Full<Bytes>> {
        let permit =
            match tokio::time::timeout(QUEUE_TIMEOUT, Arc::clone(&self.workers).acquire_owned())
                .await
            {
                Ok(Ok(permit)) => permit,
                _ => {
                    return error(ApiError {
                        status: 503,
                        message: "busy: every worker is taken, try again".into(),
                    })
                }
            };
        let ctx = Arc::clone(&self.ctx);
        let work = tokio::task::spawn_blocking(move || {
            let answer = api::answer(&q, &ctx);
            drop(permit);
            answer
        });
        match work.await {
            Ok(Ok(doc)) => json_response(StatusCode::OK, &doc),
            Ok(Err(e)) => error(e),
            Err(_) => error(ApiError::internal(
                "internal error: the answer failed (see the server's log)",
            )),
        }
    }
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
