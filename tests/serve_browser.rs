//! The explorer page in a real browser: headless Chromium, driven over WebDriver
//! (Debian's `chromium` and `chromium-driver`), plays a whole game of the four-piece
//! game by clicking (placements, a capture while placing, slides, flights, a capture
//! by a slide), and after every move checks what the page shows against the API.
//! Back, forward, a reloaded URL, the variant switch and the paste box are checked
//! too. The other modes: games against the engine (as White and as Black, under both
//! strategies, one played to its end), each engine move checked against the API's
//! answer; the review of a game with a blunder against `/api/review`; a puzzle of
//! `/api/puzzle` tried with a wrong move, then solved. Screenshots go to
//! `target/tmp/serve-screenshots/` (printed).
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

    /// Whether an element is displayed (it and its ancestors).
    fn visible(&self, css: &str) -> bool {
        let script = format!(
            "const e = document.querySelector({}); return !!e && e.getClientRects().length > 0;",
            json!(css)
        );
        self.script(&script) == true
    }

    fn text(&self, css: &str) -> String {
        let script = format!(
            "const e = document.querySelector({}); return e ? e.textContent : null;",
            json!(css)
        );
        self.script(&script)
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}"))
            .to_string()
    }

    /// The URL's parameter `name`, or "".
    fn param(&self, name: &str) -> String {
        let script = format!(
            "return new URLSearchParams(location.search).get({}) || '';",
            json!(name)
        );
        self.script(&script)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The moves of the line the URL holds.
    fn line(&self) -> Vec<String> {
        self.param("moves")
            .split_whitespace()
            .map(str::to_string)
            .collect()
    }

    /// Play a move by clicking its points: a placement's point, or a piece and its
    /// destination, then the piece it takes.
    fn click_move(&self, mv: &str) {
        let (path, capture) = match mv.split_once('x') {
            Some((path, capture)) => (path, Some(capture)),
            None => (mv, None),
        };
        for point in path.split('-').chain(capture) {
            self.click(&format!("#pt-{point}"));
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

/// The API's answer about the position after `moves` from the four-piece start.
fn position(server: &Server, moves: &[String], strategy: &str) -> Json {
    server.json(&format!(
        "{}&strategy={strategy}",
        api(START4, &moves.join(" "))
    ))
}

/// The move the page's engine plays under ultra or classes: the first of the
/// answer's line (the tables' choice after the game's positions: traps and circles
/// for ultra), else the answer's first move.
fn engine_choice(answer: &Json) -> Option<String> {
    answer["line"]
        .as_array()
        .and_then(|l| l.first())
        .and_then(|m| m.as_str())
        .map(str::to_string)
        .or_else(|| move_names(answer).first().cloned())
}

fn move_names(doc: &Json) -> Vec<String> {
    doc["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["move"].as_str().expect("a move").to_string())
        .collect()
}

/// The moves of an answer whose result is the first's (the equal best).
fn equal_best(doc: &Json) -> Vec<String> {
    let moves = doc["moves"].as_array().expect("moves");
    moves
        .iter()
        .filter(|m| m["result"] == moves[0]["result"])
        .map(|m| m["move"].as_str().expect("a move").to_string())
        .collect()
}

/// Every engine move of the line (those of the side `engine`) is one the API's
/// answer allows: its first move under ultra, one of the equal best under perfect.
fn check_engine_moves(server: &Server, line: &[String], engine: &str, strategy: &str) {
    let first = position(server, &[], strategy);
    let mut side = first["side_to_move"].as_str().expect("a side").to_string();
    for (i, mv) in line.iter().enumerate() {
        if side == engine {
            let answer = position(server, &line[..i], strategy);
            match strategy {
                // The first move of the answer's line: the tables' choice after the
                // game's positions (traps, no circles), else the answer's first move.
                "ultra" | "classes" => assert_eq!(
                    Some(mv),
                    engine_choice(&answer).as_ref(),
                    "the engine's move {} of {line:?}",
                    i + 1
                ),
                _ => assert!(
                    equal_best(&answer).contains(mv),
                    "the engine's move {} of {line:?}: {mv} is not among {:?}",
                    i + 1,
                    equal_best(&answer)
                ),
            }
        }
        side = if side == "white" { "black" } else { "white" }.to_string();
    }
}

/// The move of an answer worst for its player: the quickest loss, else the draw of the
/// worst class, else the slowest win; the first of equals.
fn worst(doc: &Json) -> String {
    let rank = |m: &Json| {
        let r = &m["result"];
        let dtm = r["dtm"].as_i64().unwrap_or(0);
        match r["wdl"].as_str() {
            Some("loss") => (0, dtm),
            Some("draw") => (1, r["class"].as_i64().unwrap_or(0)),
            _ => (2, -dtm),
        }
    };
    let moves = doc["moves"].as_array().expect("moves");
    let mut worst = &moves[0];
    for m in moves {
        if rank(m) < rank(worst) {
            worst = m;
        }
    }
    worst["move"].as_str().expect("a move").to_string()
}

#[test]
#[ignore = "needs Debian's chromium and chromium-driver; run with --ignored (.ci/run does)"]
fn a_game_against_the_engine_is_played_to_its_end() {
    let server = Server::start(serve_util::tables4(), &[]);
    let shots = screenshots();
    let browser = Browser::start(1000, 900);
    browser.goto(&format!(
        "{}/?mode=play&color=black&fen={}",
        server.url(),
        serve_util::enc(START4)
    ));
    assert_eq!(browser.wait_ready(), "ready");
    // The engine opened as White.
    assert_eq!(browser.line().len(), 1);
    assert!(browser.text("#playstate").contains("Your move"));
    // Values are hidden while playing, until asked for.
    assert!(!browser.visible("#movelist"), "the move list shows");
    assert!(!browser.visible("#value"), "the value shows");
    browser.click("#showvalues");
    assert_eq!(browser.wait_ready(), "ready");
    assert!(browser.visible("#movelist"), "values asked for");
    assert_eq!(browser.param("values"), "1");
    check_against_api(&browser, &server, &[browser.line()[0].as_str()]);
    browser.click("#showvalues");
    browser.wait_ready();
    assert!(!browser.visible("#movelist"));
    assert_eq!(browser.line().len(), 1, "no engine move in between");
    browser.screenshot(&shots.join("7-play-start.png"));

    // Black plays the worst it can (the four-piece game is a draw, which the engine
    // would hold for ever); the engine answers every move by the first of the API's
    // line, and wins.
    let mut turns = 0;
    loop {
        let line = browser.line();
        let answer = position(&server, &line, "ultra");
        if !answer["game_over"].is_null() {
            break;
        }
        assert_eq!(answer["side_to_move"], "black", "after {line:?}");
        let mv = worst(&answer);
        browser.click_move(&mv);
        assert_eq!(browser.wait_ready(), "ready");
        let after = browser.line();
        assert_eq!(after[line.len()], mv, "{after:?}");
        assert!(after.len() <= line.len() + 2, "{after:?}");
        turns += 1;
        assert!(turns < 100, "no end after {turns} turns: {after:?}");
        if turns == 2 {
            browser.screenshot(&shots.join("8-play-engine-answered.png"));
        }
    }
    let line = browser.line();
    check_engine_moves(&server, &line, "white", "ultra");
    let end = position(&server, &line, "ultra");
    assert_eq!(end["game_over"]["winner"], "white", "{line:?}");
    let shown = browser.shown();
    assert!(
        shown["status"]
            .as_str()
            .is_some_and(|s| s.contains("Game over") && s.contains("white wins")),
        "{shown}"
    );
    assert!(
        browser.text("#playstate").contains("the engine wins"),
        "{}",
        browser.text("#playstate")
    );
    browser.screenshot(&shots.join("9-play-game-over.png"));

    // Undo takes back to Black's last turn; back in the browser lands there too.
    browser.click("#undo");
    assert_eq!(browser.wait_ready(), "ready");
    let taken = browser.line();
    assert!(taken.len() < line.len() && taken[..] == line[..taken.len()]);
    assert_eq!(
        position(&server, &taken, "ultra")["side_to_move"],
        "black",
        "{taken:?}"
    );
    assert!(browser.text("#playstate").contains("Your move"));
    browser.script("history.back();");
    assert_eq!(browser.wait_ready(), "ready");
    assert_eq!(browser.line(), line);
    // A new game starts from the position of the URL, the engine to open it again.
    browser.click("#newgame");
    assert_eq!(browser.wait_ready(), "ready");
    assert_eq!(browser.line(), line[..1].to_vec());
}

#[test]
#[ignore = "needs Debian's chromium and chromium-driver; run with --ignored (.ci/run does)"]
fn the_engine_plays_black_by_either_strategy() {
    let server = Server::start(serve_util::tables4(), &[]);
    let shots = screenshots();
    let browser = Browser::start(1000, 900);
    for strategy in ["ultra", "perfect"] {
        browser.goto(&format!(
            "{}/?mode=play&color=white&strategy={strategy}&fen={}",
            server.url(),
            serve_util::enc(START4)
        ));
        assert_eq!(browser.wait_ready(), "ready");
        assert_eq!(browser.line().len(), 0, "{strategy}");
        for _ in 0..5 {
            let line = browser.line();
            let answer = position(&server, &line, strategy);
            assert_eq!(answer["side_to_move"], "white", "{line:?}");
            browser.click_move(&move_names(&answer)[0]);
            assert_eq!(browser.wait_ready(), "ready");
            assert_eq!(browser.line().len(), line.len() + 2, "{strategy}");
        }
        let line = browser.line();
        check_engine_moves(&server, &line, "black", strategy);
        let expected = if strategy == "ultra" { "" } else { strategy };
        assert_eq!(browser.param("strategy"), expected);
        assert_eq!(browser.param("color"), "white");
        browser.screenshot(&shots.join(format!("10-play-white-{strategy}.png")));
    }
    // Reloaded, the page is where it was: no move of the engine's in between.
    let url = browser.script("return location.href;");
    let line = browser.line();
    browser.goto(url.as_str().expect("a URL"));
    assert_eq!(browser.wait_ready(), "ready");
    assert_eq!(browser.line(), line);
    // Switching colours: the engine takes White's turn at once.
    browser.click("#color option[value='black']");
    assert_eq!(browser.wait_ready(), "ready");
    let switched = browser.line();
    assert_eq!(switched.len(), line.len() + 1);
    assert_eq!(switched[..line.len()], line[..]);
    // White's earlier moves were the user's, the API's first ones: allowed too.
    check_engine_moves(&server, &switched, "white", "perfect");
}

#[test]
#[ignore = "needs Debian's chromium and chromium-driver; run with --ignored (.ci/run does)"]
fn the_review_shows_the_marks_of_the_api() {
    let server = Server::start(serve_util::tables4(), &[]);
    let shots = screenshots();
    let browser = Browser::start(1000, 1100);
    // Black's last move lets White win at once: a blunder.
    let game = "a7 b6 d7 f6 g7xb6 d2 a1 f2 a1-a4 d2-b2 g7-g4 b2-d2";
    browser.goto(&format!(
        "{}/?mode=review&fen={}&moves={}",
        server.url(),
        serve_util::enc(START4),
        serve_util::enc(game)
    ));
    assert_eq!(browser.wait_ready(), "ready");
    for strategy in ["ultra", "perfect"] {
        let review = server.json(&format!(
            "/api/review?fen={}&moves={}&strategy={strategy}",
            serve_util::enc(START4),
            serve_util::enc(game)
        ));
        let expected: Vec<Json> = review["plies"]
            .as_array()
            .expect("plies")
            .iter()
            .map(|p| {
                json!([
                    p["ply"].to_string(),
                    p["mark"].as_str().unwrap_or(""),
                    p["only_move"].to_string()
                ])
            })
            .collect();
        let shown = browser.script(
            "return [...document.querySelectorAll('#review li')].map(li => [li.dataset.ply, li.dataset.mark, li.dataset.only]);",
        );
        assert_eq!(shown, Json::from(expected), "{strategy}");
        assert!(
            review["plies"]
                .as_array()
                .expect("plies")
                .iter()
                .any(|p| p["mark"] == "blunder"),
            "{review}"
        );
        let blunder = browser.text("#review li[data-mark='blunder']");
        assert!(blunder.contains("BLUNDER"), "{blunder}");
        let black = &review["black"];
        assert!(
            browser.text("#summary-black").contains(&format!(
                "{} blunders; only moves {} of {} found",
                black["blunders"], black["only_moves_found"], black["only_moves"]
            )),
            "{}",
            browser.text("#summary")
        );
        if strategy == "ultra" {
            browser.screenshot(&shots.join("11-review.png"));
            browser.click("#strategy option[value='perfect']");
            assert_eq!(browser.wait_ready(), "ready");
        }
    }
    // A ply clicked: the position before it, the move list beside it.
    let plies: Vec<&str> = game.split(' ').collect();
    browser.click("#review li[data-ply='12']");
    assert_eq!(browser.wait_ready(), "ready");
    assert_eq!(browser.param("ply"), "11");
    assert_eq!(browser.param("mode"), "review");
    let before = position(
        &server,
        &plies[..11]
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
        "perfect",
    );
    assert_eq!(browser.shown()["position"], before["position"]);
    assert!(browser.visible("#review li.current[data-ply='12']"));
    assert!(browser.visible("#movelist"));
    browser.screenshot(&shots.join("12-review-ply.png"));
}

#[test]
#[ignore = "needs Debian's chromium and chromium-driver; run with --ignored (.ci/run does)"]
fn a_puzzle_flags_a_wrong_move_and_takes_the_solution() {
    let server = Server::start(serve_util::tables4(), &[]);
    let shots = screenshots();
    let browser = Browser::start(1000, 900);
    let puzzle = server.json("/api/puzzle?sector=3-4&goal=win&seed=7");
    browser.goto(&format!(
        "{}/?mode=train&sector=3-4&goal=win&seed=7",
        server.url()
    ));
    assert_eq!(browser.wait_ready(), "ready");
    let fen = puzzle["position"].as_str().expect("a position");
    assert_eq!(browser.shown()["position"], fen);
    let task = browser.text("#task");
    assert!(
        task.starts_with(&format!("White to move and win in {}", puzzle["dtm"])),
        "{task}"
    );
    let sectors = browser
        .script("return [...document.querySelectorAll('#sector option')].map(o => o.value);");
    assert_eq!(sectors, json!(["", "3-3", "3-4", "4-3"]));
    assert!(!browser.visible("#movelist"), "values hidden before a try");
    assert_eq!(browser.text("#solution"), "");
    browser.screenshot(&shots.join("13-train-puzzle.png"));

    // A move that does not keep the win, by the tables.
    let answer = server.json(&api(fen, ""));
    let wrong = answer["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .find(|m| m["result"]["wdl"] != "win")
        .and_then(|m| m["move"].as_str())
        .expect("a move that does not win")
        .to_string();
    browser.click_move(&wrong);
    assert_eq!(browser.wait_ready(), "ready");
    let verdict = browser.script("return document.getElementById('verdict').dataset.verdict;");
    assert_eq!(verdict, "wrong", "{}", browser.text("#verdict"));
    assert!(browser.text("#verdict").contains(&wrong));
    let solution = puzzle["solution"].as_str().expect("a solution");
    assert!(
        browser
            .text("#solution")
            .contains(&format!("Solution: {solution}.")),
        "{}",
        browser.text("#solution")
    );
    browser.screenshot(&shots.join("14-train-wrong.png"));

    // Again, with the solution.
    browser.click("#retry");
    assert_eq!(browser.wait_ready(), "ready");
    assert_eq!(browser.shown()["position"], fen);
    assert_eq!(
        browser.text("#verdict"),
        "Find the move: click it on the board."
    );
    browser.click_move(solution);
    assert_eq!(browser.wait_ready(), "ready");
    let verdict = browser.script("return document.getElementById('verdict').dataset.verdict;");
    assert_eq!(verdict, "correct", "{}", browser.text("#verdict"));
    let after = server.json(&api(fen, solution));
    assert_eq!(browser.shown()["position"], after["position"]);
    assert!(browser.visible("#movelist"), "values shown after the try");
    browser.screenshot(&shots.join("15-train-correct.png"));

    // Play on against the engine, which answers by its choice.
    browser.click("#playon");
    assert_eq!(browser.wait_ready(), "ready");
    assert_eq!(browser.param("mode"), "play");
    assert_eq!(browser.param("color"), "white");
    let line = browser.line();
    assert_eq!(line.len(), 2, "{line:?}");
    assert_eq!(line[0], solution);
    let reply = server.json(&format!("{}&strategy=ultra", api(fen, solution)));
    assert_eq!(Some(&line[1]), engine_choice(&reply).as_ref());

    // The next puzzle: another seed in the URL, a task again.
    browser.script("history.back();");
    assert_eq!(browser.wait_ready(), "ready");
    assert_eq!(browser.param("mode"), "train");
    assert_eq!(browser.shown()["position"], fen);
    // Drawn puzzles of 3-3 (3-4 has hardly any).
    browser.click("#sector option[value='3-3']");
    assert_eq!(browser.wait_ready(), "ready");
    browser.click("#goal option[value='draw']");
    assert_eq!(browser.wait_ready(), "ready");
    let seed = browser.param("seed");
    let first = browser.shown()["position"].clone();
    browser.click("#nextpuzzle");
    assert_eq!(browser.wait_ready(), "ready");
    assert_ne!(browser.param("seed"), seed);
    assert_eq!(
        (browser.param("sector"), browser.param("goal")),
        ("3-3".to_string(), "draw".to_string())
    );
    assert!(browser.text("#task").contains("to move and hold the draw"));
    let shown = browser.param("seed");
    let puzzle = server.json(&format!("/api/puzzle?sector=3-3&goal=draw&seed={shown}"));
    assert_eq!(browser.shown()["position"], puzzle["position"]);
    assert_ne!(browser.shown()["position"], first, "another puzzle");
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
    // Every mode fits the screen too; without tables a puzzle is refused by name.
    for mode in ["play", "review", "train", "explore"] {
        browser.click(&format!("#mode-{mode}"));
        let state = browser.wait_ready();
        assert_eq!(
            browser.param("mode"),
            if mode == "explore" { "" } else { mode }
        );
        let widths =
            browser.script("return [document.documentElement.scrollWidth, window.innerWidth];");
        assert!(
            widths[0].as_f64() <= widths[1].as_f64(),
            "{mode}: page {} px wide in a {} px window",
            widths[0],
            widths[1]
        );
        if mode == "train" {
            assert_eq!(state, "error");
            assert!(
                browser
                    .text("#error")
                    .contains("none of the classic endgames"),
                "{}",
                browser.text("#error")
            );
        }
        browser.screenshot(&shots.join(format!("6-phone-{mode}.png")));
    }
}
