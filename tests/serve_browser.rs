//! The explorer page in a real browser: headless Chromium, driven over WebDriver
//! (Debian's `chromium` and `chromium-driver`), plays a whole game of the four-piece
//! game by clicking (placements, a capture while placing, slides, flights, a capture
//! by a slide), and after every move checks what the page shows against the API.
//! Back, forward, a reloaded URL, the variant switch and the paste box are checked
//! too. Screenshots go to `target/tmp/serve-screenshots/` (printed).
//!
//! These tests are ignored by a plain `cargo test`, which must pass on a machine
//! without a browser; `.ci/run` installs Chromium and runs them always, with
//! `cargo test --release --test serve_browser -- --ignored`. Run so without Chromium,
//! they fail, saying what to install: they never skip.

mod serve_util;

use serde_json::{json, Value as Json};
use serve_util::{api, exchange, Server, START4};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";
/// The WebDriver key of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
/// The longest wait for the browser or the page: far beyond what either takes, so
/// only a hung one reaches it.
const PATIENCE: Duration = Duration::from_secs(30);

/// A WebDriver session of a chromedriver process, ended and killed when dropped.
struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
}

impl Browser {
    fn start(width: u32, height: u32) -> Browser {
        for (path, package) in [(CHROMEDRIVER, "chromium-driver"), (CHROMIUM, "chromium")] {
            assert!(
                Path::new(path).exists(),
                "{path} is missing: this test needs Debian's chromium and chromium-driver \
                 packages (`apt-get install chromium chromium-driver`; .ci/run installs them); \
                 {package} provides {path}"
            );
        }
        // A free port for the driver: bound, then released for it to take.
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let mut browser = Browser {
            driver,
            addr,
            session: String::new(),
        };
        let since = Instant::now();
        loop {
            if std::net::TcpStream::connect(addr).is_ok() {
                let status = browser.call("GET", "/status", None);
                if status["ready"] == true {
                    break;
                }
            }
            assert!(
                since.elapsed() < PATIENCE,
                "chromedriver did not become ready"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": CHROMIUM,
            "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     format!("--window-size={width},{height}")],
        }}}});
        let session = browser.call("POST", "/session", Some(caps));
        browser.session = session["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {session}"))
            .to_string();
        browser
    }

    /// One WebDriver command; its `value`, which must not be an error.
    fn call(&self, method: &str, path: &str, body: Option<Json>) -> Json {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        let (status, text) = exchange(self.addr, request.as_bytes());
        let doc: Json = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{method} {path}: {status} {text:?}: {e}"));
        assert_eq!(status, 200, "{method} {path}: {doc}");
        doc["value"].clone()
    }

    fn session_call(&self, method: &str, path: &str, body: Option<Json>) -> Json {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    fn goto(&self, url: &str) {
        self.session_call("POST", "/url", Some(json!({ "url": url })));
    }

    fn find(&self, css: &str) -> String {
        let e = self.session_call(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        e[ELEMENT].as_str().expect("an element").to_string()
    }

    fn click(&self, css: &str) {
        let id = self.find(css);
        self.session_call("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.session_call("POST", &format!("/element/{id}/clear"), Some(json!({})));
        self.session_call(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        );
    }

    fn script(&self, script: &str) -> Json {
        self.session_call(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    fn screenshot(&self, path: &Path) {
        use base64::Engine as _;
        let data = self.session_call("GET", "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD
            .decode(data.as_str().expect("base64 text"))
            .expect("base64");
        std::fs::write(path, png).expect("screenshot written");
    }

    /// Wait until the page has its answer (or its error) for the position asked.
    fn wait_ready(&self) -> String {
        let since = Instant::now();
        loop {
            let state = self.script("return document.body.dataset.state;");
            if state == "ready" || state == "error" {
                return state.as_str().unwrap_or_default().to_string();
            }
            assert!(
                since.elapsed() < PATIENCE,
                "the page never finished loading"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What the page shows.
    fn shown(&self) -> Json {
        self.script(
            "const v = document.getElementById('value');
             return {
               position: document.getElementById('posstr').textContent,
               wdl: v.dataset.wdl, dtm: v.dataset.dtm, value: v.textContent,
               status: document.getElementById('status').textContent,
               moves: [...document.querySelectorAll('#movelist li')].map(li => [li.dataset.move, li.dataset.wdl, li.dataset.dtm]),
               marks: document.querySelectorAll('#marks [data-move]').length,
               rings: [...document.querySelectorAll('#marks [data-capture]')].map(e => e.dataset.capture).sort(),
               pieces: document.querySelectorAll('#pieces circle').length,
               error: document.getElementById('error').textContent,
               search: location.search,
               variant: document.getElementById('variant').value,
             };",
        )
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let path = format!("/session/{}", self.session);
            let request = format!(
                "DELETE {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                self.addr
            );
            let _ = exchange(self.addr, request.as_bytes());
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// The page agrees with the API about the game `moves` from the four-piece start.
fn check_against_api(browser: &Browser, server: &Server, moves: &[&str]) -> Json {
    let answer = server.json(&api(START4, &moves.join(" ")));
    let shown = browser.shown();
    assert_eq!(shown["error"], "", "after {moves:?}");
    assert_eq!(shown["position"], answer["position"], "after {moves:?}");
    let value = &answer["value"];
    assert_eq!(
        shown["wdl"],
        value["wdl"].as_str().unwrap_or(""),
        "after {moves:?}"
    );
    let dtm = value["dtm"]
        .as_u64()
        .map_or(String::new(), |d| d.to_string());
    assert_eq!(shown["dtm"], dtm.as_str(), "after {moves:?}");
    let api_moves: Vec<Json> = answer["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| {
            let r = &m["result"];
            json!([
                m["move"],
                r["wdl"].as_str().unwrap_or(""),
                r["dtm"].as_u64().map_or(String::new(), |d| d.to_string())
            ])
        })
        .collect();
    assert_eq!(shown["moves"], Json::from(api_moves), "after {moves:?}");
    let on_board = answer["white"]["board"].as_array().expect("board").len()
        + answer["black"]["board"].as_array().expect("board").len();
    assert_eq!(shown["pieces"], on_board, "after {moves:?}");
    if answer["moves"].as_array().is_some_and(|m| !m.is_empty()) {
        assert!(
            shown["marks"].as_u64() > Some(0),
            "moves drawn after {moves:?}"
        );
    }
    answer
}

fn screenshots() -> PathBuf {
    let dir = serve_util::artifacts("serve-screenshots");
    println!("screenshots: {}", dir.display());
    dir
}

#[test]
#[ignore = "needs Debian's chromium and chromium-driver; run with --ignored (.ci/run does)"]
fn a_game_played_by_clicking_shows_what_the_api_says() {
    let server = Server::start(serve_util::tables4(), &[]);
    let shots = screenshots();
    let browser = Browser::start(1000, 900);
    let start_url = format!("{}/?fen={}", server.url(), serve_util::enc(START4));
    browser.goto(&start_url);
    assert_eq!(browser.wait_ready(), "ready");
    check_against_api(&browser, &server, &[]);
    browser.screenshot(&shots.join("1-start.png"));

    // Each step: the points clicked, and the move they make.
    let steps: [(&[&str], &str); 13] = [
        (&["a7"], "a7"),
        (&["b6"], "b6"),
        (&["d7"], "d7"),
        (&["f6"], "f6"),
        (&["g7", "b6"], "g7xb6"),
        (&["d2"], "d2"),
        (&["a1"], "a1"),
        (&["f2"], "f2"),
        (&["a1", "a4"], "a1-a4"),
        (&["d2", "b2"], "d2-b2"),
        (&["g7", "g4"], "g7-g4"),
        (&["b2", "d2"], "b2-d2"),
        (&["g4", "g7", "f6"], "g4-g7xf6"),
    ];
    let mut played: Vec<&str> = Vec::new();
    for (clicks, mv) in steps {
        for (i, point) in clicks.iter().enumerate() {
            if i == 2 {
                // The mill is closed: the page rings the pieces that may be taken.
                let shown = browser.shown();
                assert!(
                    shown["rings"].as_array().is_some_and(|r| r.len() > 1),
                    "{shown}"
                );
                browser.screenshot(&shots.join("2-choose-capture.png"));
            }
            browser.click(&format!("#pt-{point}"));
        }
        browser.wait_ready();
        played.push(mv);
        let answer = check_against_api(&browser, &server, &played);
        assert_eq!(answer["played"], json!(played));
        if mv == "g7xb6" {
            browser.screenshot(&shots.join("3-after-capture.png"));
        }
    }
    let shown = browser.shown();
    assert!(
        shown["status"]
            .as_str()
            .is_some_and(|s| s.contains("Game over") && s.contains("white wins")),
        "{shown}"
    );
    browser.screenshot(&shots.join("4-game-over.png"));

    // Back, forward, and the URL holds the position.
    browser.click("#back");
    browser.wait_ready();
    check_against_api(&browser, &server, &played[..12]);
    let url = browser.script("return location.href;");
    assert!(url.as_str().is_some_and(|u| u.contains("ply=12")), "{url}");
    browser.click("#forward");
    browser.wait_ready();
    check_against_api(&browser, &server, &played);
    browser.click("#back");
    browser.wait_ready();
    browser.goto(url.as_str().expect("a URL"));
    browser.wait_ready();
    check_against_api(&browser, &server, &played[..12]);
    browser.click("#forward");
    browser.wait_ready();

    // The variant switch: Black, to move with three pieces after move 11, flies in
    // the Standard game and only slides without flying.
    browser.click("#line span[data-ply='11']");
    browser.wait_ready();
    let flying = check_against_api(&browser, &server, &played[..11]);
    browser.click("#variant option[value='no-flying']");
    assert_eq!(browser.wait_ready(), "ready");
    let shown = browser.shown();
    assert_eq!(shown["variant"], "no-flying");
    let path = format!("{}&variant=no-flying", api(START4, &played[..11].join(" ")));
    let sliding = server.json(&path);
    assert_eq!(sliding["variant"], "no-flying");
    let names = |doc: &Json| -> Vec<Json> {
        doc["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m["move"].clone())
            .collect()
    };
    let shown_moves: Vec<Json> = shown["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m[0].clone())
        .collect();
    assert_eq!(shown_moves, names(&sliding));
    assert!(names(&sliding).len() < names(&flying).len(), "{shown}");
    browser.screenshot(&shots.join("5-no-flying.png"));

    // A bad pasted string is refused with the page saying what is wrong.
    browser.type_into("#paste", "WWW/...");
    browser.click("#load button");
    assert_eq!(browser.wait_ready(), "error");
    let shown = browser.shown();
    assert!(
        shown["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("fen: ")),
        "{shown}"
    );

    // A pasted position string replaces the game.
    browser.click("#variant option[value='standard']");
    browser.wait_ready();
    let fen = "WW./..B/.../W....W/.../.BB/... w 0 0";
    browser.type_into("#paste", fen);
    browser.click("#load button");
    assert_eq!(browser.wait_ready(), "ready");
    let shown = browser.shown();
    assert_eq!(shown["position"], fen);
    assert!(
        shown["search"].as_str().is_some_and(|s| s.contains("fen=")),
        "{shown}"
    );
    let answer = server.json(&api(fen, ""));
    assert_eq!(answer["value"]["wdl"], "win");
    assert_eq!(shown["wdl"], "win");
    assert_eq!(shown["moves"][0][0], answer["moves"][0]["move"]);
}

#[test]
#[ignore = "needs Debian's chromium and chromium-driver; run with --ignored (.ci/run does)"]
fn the_page_fits_a_phone_and_estimates_without_tables() {
    let empty = tempfile::tempdir().expect("a temporary directory");
    let server = Server::start(empty.path(), &["--time", "0.3"]);
    let shots = screenshots();
    let browser = Browser::start(390, 844);
    browser.goto(&format!("{}/", server.url()));
    assert_eq!(browser.wait_ready(), "ready");
    let shown = browser.shown();
    assert_eq!(shown["position"], ".../.../.../....../.../.../... w 9 9");
    assert!(
        shown["value"]
            .as_str()
            .is_some_and(|v| v.contains("estimate")),
        "{shown}"
    );
    assert_eq!(shown["moves"].as_array().map(Vec::len), Some(24));
    // Nothing wider than the screen: no sideways scrolling on a phone.
    let widths = browser.script(
        "return [document.documentElement.scrollWidth, window.innerWidth, document.getElementById('board').getBoundingClientRect().width];",
    );
    let (scroll, inner, board) = (
        widths[0].as_f64().unwrap_or(f64::MAX),
        widths[1].as_f64().unwrap_or(0.0),
        widths[2].as_f64().unwrap_or(0.0),
    );
    assert!(
        scroll <= inner,
        "page {scroll} px wide in a {inner} px window"
    );
    assert!(
        board > inner * 0.8,
        "board {board} px in a {inner} px window"
    );
    browser.click("#pt-d6");
    browser.wait_ready();
    let shown = browser.shown();
    assert_eq!(shown["position"], ".../.W./.../....../.../.../... b 8 9");
    browser.screenshot(&shots.join("6-phone.png"));
}
