//! Helpers of the `morris serve` tests: small tables, a running server, and a small
//! HTTP/1.1 client over a plain socket (so tests can also send what no well-behaved
//! client would).

// Each test crate uses its own part of these helpers.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// The built binary.
pub const BIN: &str = env!("CARGO_BIN_EXE_morris");

/// The longest a test waits for one answer: far beyond any request's search time, so
/// only a server that stopped answering reaches it.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(60);

/// The start of the game of four pieces a side, which the small tables hold whole.
pub const START4: &str = ".../.../.../....../.../.../... w 4 4";

/// What `morris ARGS... --tb DIR` prints, the command having succeeded.
pub fn morris(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new(BIN)
        .args(args)
        .arg("--tb")
        .arg(dir)
        .output()
        .expect("morris runs");
    assert!(
        out.status.success(),
        "morris {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Tables of the whole Standard game of four pieces a side (movement and placement),
/// built once per test program.
pub fn tables4() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        morris(dir.path(), &["generate", "--max-pieces", "4"]);
        dir
    })
    .path()
}

/// A copy of the small tables, to damage.
pub fn copy_of_tables4() -> tempfile::TempDir {
    let copy = tempfile::tempdir().expect("a temporary directory");
    for entry in std::fs::read_dir(tables4()).expect("tables listed") {
        let path = entry.expect("an entry").path();
        std::fs::copy(&path, copy.path().join(path.file_name().expect("a name"))).expect("copied");
    }
    copy
}

/// A `morris serve` on a free port, killed when dropped.
pub struct Server {
    child: Child,
    // Kept open: a server whose standard output is closed may stop at its next line.
    _stdout: BufReader<std::process::ChildStdout>,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Server {
    /// Start `morris serve --tb DIR --addr 127.0.0.1:0 EXTRA...` and wait for its URL.
    pub fn start(tb: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(BIN)
            .args(["serve", "--addr", "127.0.0.1:0", "--tb"])
            .arg(tb)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("morris serve starts");
        let mut first = String::new();
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout piped"));
        stdout
            .read_line(&mut first)
            .expect("morris serve prints its URL");
        let addr = first
            .trim()
            .strip_prefix("morris explorer at http://")
            .and_then(|s| s.strip_suffix('/'))
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no URL in the first line: {first:?}"));
        Server {
            child,
            _stdout: stdout,
            addr,
        }
    }

    /// Whether the process still runs.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().expect("status readable").is_none()
    }

    /// The base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// GET a path (with its query), returning the status and the body.
    pub fn get(&self, path: &str) -> (u16, String) {
        let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let (status, body) = exchange(self.addr, request.as_bytes());
        (status, body)
    }

    /// GET a path and parse the JSON answer, which must be 200.
    pub fn json(&self, path: &str) -> serde_json::Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "GET {path}: {body}");
        serde_json::from_str(&body).expect("JSON")
    }

    /// POST a body to a path.
    pub fn post(&self, path: &str, body: &[u8]) -> (u16, String) {
        let mut request = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        request.extend_from_slice(body);
        exchange(self.addr, &request)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Send raw bytes on a new connection and read the answer: the status and the body
/// (status 0 when the server closed without a status line). The body ends at its
/// Content-Length where one is given (some servers keep the connection open), else
/// where the server closes.
pub fn exchange(addr: SocketAddr, request: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("connects");
    stream
        .set_read_timeout(Some(CLIENT_TIMEOUT))
        .expect("timeout set");
    // The server may answer and close before reading all of a request it refuses.
    let _ = stream.write_all(request);
    let mut raw = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
            let length = head.lines().find_map(|l| {
                l.strip_prefix("content-length:")
                    .and_then(|v| v.trim().parse::<usize>().ok())
            });
            if let Some(length) = length {
                while raw.len() < end + 4 + length {
                    match stream.read(&mut chunk) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => raw.extend_from_slice(&chunk[..n]),
                    }
                }
                break;
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&chunk[..n]),
        }
    }
    parse_response(&raw)
}

fn parse_response(raw: &[u8]) -> (u16, String) {
    let text = String::from_utf8_lossy(raw);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    (status, body)
}

/// A query string value, percent-encoded.
pub fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The API path for a position string and moves.
pub fn api(fen: &str, moves: &str) -> String {
    format!("/api/position?fen={}&moves={}", enc(fen), enc(moves))
}

/// A keep-alive connection sending GETs one after another.
pub struct KeepAlive {
    reader: BufReader<TcpStream>,
}

impl KeepAlive {
    /// Connect.
    pub fn new(addr: SocketAddr) -> KeepAlive {
        let stream = TcpStream::connect(addr).expect("connects");
        stream
            .set_read_timeout(Some(CLIENT_TIMEOUT))
            .expect("timeout set");
        stream.set_nodelay(true).expect("nodelay set");
        KeepAlive {
            reader: BufReader::new(stream),
        }
    }

    /// GET a path; the status and body.
    pub fn get(&mut self, path: &str) -> (u16, Vec<u8>) {
        let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n");
        self.reader
            .get_mut()
            .write_all(request.as_bytes())
            .expect("request sent");
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("status line");
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut length = 0;
        loop {
            line.clear();
            self.reader.read_line(&mut line).expect("header line");
            if line.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().expect("a length");
                }
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).expect("body");
        (status, body)
    }
}

/// Where the tests put files for people to look at (screenshots).
pub fn artifacts(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("artifact directory");
    dir
}
