//! `cqlrs serve` over HTTP: the server is started on a free port of 127.0.0.1, spoken to
//! with plain HTTP/1.0 requests, and stopped when each test ends (also when it fails).
//! Every wait is bounded. The page itself is tested in a real browser by
//! `tests/serve/browser.py` (run from `.ci/run`).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{cqlrs, stdout, temp_dir, write, BIN};
use serde_json::{json, Value};

const GAMES: &str = "data/lichess-2016-05-first1500.pgn";

/// A running `cqlrs serve`, killed when dropped.
struct Server {
    child: Child,
    port: u16,
    token: Option<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP reply: status, headers (lowercase names) and body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

fn start(extra: &[&str]) -> Server {
    let mut child = Command::new(BIN)
        .arg("serve")
        .args(["--port", "0"])
        // A server left behind by a test that was killed ends by itself.
        .args(if extra.contains(&"--idle-exit") { &[][..] } else { &["--idle-exit", "300"][..] })
        .args(extra)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cqlrs serve starts");
    let out = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(out).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(Duration::from_secs(30)).unwrap_or_default();
    let mut server = Server { child, port: 0, token: None };
    let url = line.trim().strip_prefix("cqlrs serve: http://").unwrap_or_else(|| panic!("no URL printed: {line:?}"));
    let (host, rest) = url.split_once('/').expect("a path");
    server.port = host.rsplit_once(':').and_then(|(_, p)| p.parse().ok()).expect("a port");
    server.token = rest.strip_prefix("?token=").map(str::to_string);
    server
}

impl Server {
    /// Send one request with these extra header lines; the reply.
    fn raw(&self, method: &str, path: &str, headers: &[String], body: &[u8]) -> Reply {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut request = format!("{method} {path} HTTP/1.0\r\n");
        for h in headers {
            request.push_str(h);
            request.push_str("\r\n");
        }
        request.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        stream.write_all(request.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        let mut bytes = Vec::new();
        let _ = stream.read_to_end(&mut bytes);
        let split = bytes.windows(4).position(|w| w == b"\r\n\r\n").expect("a header section");
        let head = String::from_utf8_lossy(&bytes[..split]).into_owned();
        let mut lines = head.lines();
        let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).expect("a status");
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        Reply { status, headers, body: bytes[split + 4..].to_vec() }
    }

    fn host(&self) -> String {
        format!("Host: 127.0.0.1:{}", self.port)
    }

    fn get(&self, path: &str) -> Reply {
        self.raw("GET", path, &[self.host()], b"")
    }

    fn post(&self, path: &str, body: Value) -> Reply {
        self.raw("POST", path, &[self.host(), "Content-Type: application/json".into()], body.to_string().as_bytes())
    }

    fn tab(&self) -> String {
        let r = self.post("/api/tab", json!({}));
        assert_eq!(r.status, 200);
        r.json()["tab"].as_str().unwrap().to_string()
    }

    /// Poll the tab's status until the scan is over; every match row seen, and the last status.
    fn wait(&self, tab: &str) -> (Vec<Value>, Value) {
        let mut rows = Vec::new();
        let started = Instant::now();
        loop {
            assert!(started.elapsed() < Duration::from_secs(120), "the scan did not end");
            let s = self.get(&format!("/api/status?tab={tab}&since={}", rows.len())).json();
            rows.extend(s["matches"].as_array().unwrap().iter().cloned());
            if s["state"] != "running" && rows.len() as u64 >= s["matched"].as_u64().unwrap_or(0) {
                return (rows, s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn only_the_pages_own_paths_are_served() {
    let server = start(&[GAMES]);
    let page = server.get("/");
    assert_eq!(page.status, 200);
    assert!(page.header("content-type").unwrap().starts_with("text/html"));
    let html = String::from_utf8_lossy(&page.body);
    for hook in
        ["id=\"query\"", "id=\"run\"", "id=\"stop\"", "id=\"errors\"", "id=\"results\"", "id=\"board\"", "id=\"moves\""]
    {
        assert!(html.contains(hook), "the page lacks {hook}");
    }
    // Built in and offline: nothing is fetched from another host.
    for asset in ["/", "/app.js", "/style.css"] {
        let body = String::from_utf8(server.get(asset).body).unwrap();
        assert!(!body.contains("http://") && !body.contains("https://"), "{asset} names another host");
    }
    assert!(server.get("/app.js").header("content-type").unwrap().starts_with("text/javascript"));
    assert!(page.header("content-security-policy").unwrap().contains("default-src 'self'"));
    for path in
        ["/../Cargo.toml", "/%2e%2e/Cargo.toml", "/src/main.rs", "/assets/serve/app.js", "//etc/passwd", "/api/nothing"]
    {
        assert_eq!(server.get(path).status, 404, "{path}");
    }
    assert_eq!(server.raw("DELETE", "/", &[server.host()], b"").status, 405);
    // Another name for the server (DNS rebinding) and another site's page are refused.
    assert_eq!(server.raw("GET", "/", &["Host: attacker.example:80".into()], b"").status, 403);
    let origin = [server.host(), "Origin: http://attacker.example".into(), "Content-Type: application/json".into()];
    assert_eq!(server.raw("POST", "/api/tab", &origin, b"{}").status, 403);
    // Bounded requests.
    let big = vec![b' '; 300 << 10];
    assert_eq!(server.raw("POST", "/api/check", &[server.host()], &big).status, 413);
    let long = format!("/api/status?tab={}", "x".repeat(5000));
    assert_eq!(server.get(&long).status, 414);
    assert_eq!(server.get("/api/status?tab=nosuchtab").status, 404);
    assert_eq!(server.raw("POST", "/api/run", &[server.host()], b"{}").status, 415);
    let json_header = [server.host(), "Content-Type: application/json".into()];
    assert_eq!(server.raw("POST", "/api/run", &json_header, b"not json").status, 400);
}

#[test]
fn a_run_lists_what_count_gives_and_downloads_the_bytes_of_o() {
    let server = start(&[GAMES]);
    let tab = server.tab();
    let r = server.post("/api/run", json!({ "tab": tab, "query": "btm mate", "syntax": "auto" }));
    assert_eq!(r.json()["ok"], true, "{}", r.json());
    let (rows, status) = server.wait(&tab);
    let count = stdout(&cqlrs(&["-i", GAMES, "-cql", "btm mate", "--count"]));
    let expected: usize = count.split_whitespace().next().unwrap().parse().unwrap();
    assert_eq!(rows.len(), expected);
    assert_eq!(status["state"], "done");
    assert_eq!(status["read"], 1500);
    assert!(status["summary"].as_str().unwrap().starts_with(&format!("{expected} matches of 1500 games")));
    // Rows come in input order, each with its tags and match count.
    let numbers: Vec<u64> = rows.iter().map(|r| r["number"].as_u64().unwrap()).collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]));
    assert!(rows.iter().all(|r| r["positions"].as_u64() == Some(1) && r["white"].is_string()));

    let dir = temp_dir("serve-download");
    let o = dir.join("o.pgn");
    cqlrs(&["-i", GAMES, "-cql", "btm mate", "-o", o.to_str().unwrap()]);
    let download = server.get(&format!("/api/download?tab={tab}"));
    assert_eq!(download.status, 200);
    assert_eq!(download.header("x-cqlrs-partial"), Some("0"));
    assert!(download.header("content-disposition").unwrap().contains("attachment"));
    assert!(download.body == std::fs::read(&o).unwrap(), "the download differs from -o");

    // The game view: the mate is marked, with its FEN and CQL's comment.
    let game = server.get(&format!("/api/game?tab={tab}&i=0")).json();
    assert_eq!(game["number"], rows[0]["number"]);
    let nodes = game["nodes"].as_array().unwrap();
    let last = &nodes[game["last"].as_u64().unwrap() as usize];
    assert_eq!(last["marked"], true);
    assert!(last["san"].as_str().unwrap().ends_with('#'));
    assert_eq!(last["fen"].as_str().unwrap().split(' ').nth(1), Some("b"));
    assert!(last["comments"].as_array().unwrap().iter().any(|c| c == "CQL"));
    assert_eq!(nodes.iter().filter(|n| n["marked"] == true).count(), 1);
    assert_eq!(server.get(&format!("/api/game?tab={tab}&i=100000")).status, 404);
}

#[test]
fn errors_carry_line_column_and_hint_and_the_language_is_told_apart() {
    let server = start(&[GAMES]);
    let r = server.post("/api/check", json!({ "query": "btm\n  mtae", "syntax": "auto" })).json();
    assert_eq!(r["ok"], false);
    let e = &r["errors"][0];
    assert_eq!((e["line"].as_u64(), e["column"].as_u64()), (Some(2), Some(3)));
    assert_eq!(e["message"], "unknown filter or variable `mtae`");
    assert_eq!(e["hint"], "did you mean `mate`?");
    assert_eq!((e["start"].as_u64(), e["end"].as_u64()), (Some(6), Some(10)));
    // As the command line tells them apart: `(match` is legacy; YACPDB when chosen.
    let legacy = server.post("/api/check", json!({ "query": "(match (position :check))", "syntax": "auto" })).json();
    assert_eq!(legacy["syntax"], "legacy", "{legacy}");
    let yacpdb = server.post("/api/check", json!({ "query": "Twins > 1", "syntax": "yacpdb" })).json();
    assert_eq!(yacpdb["syntax"], "yacpdb", "{yacpdb}");
    // A query that does not compile is not run: the tab stays idle.
    let tab = server.tab();
    let run = server.post("/api/run", json!({ "tab": tab, "query": "btm mtae" })).json();
    assert_eq!(run["ok"], false);
    assert_eq!(server.get(&format!("/api/status?tab={tab}")).json()["state"], "idle");
    // The file policy of `--secure`: a script may not read a file; the error is at its name.
    let reads = server.post("/api/check", json!({ "query": "cql() readfile \"notes.cql\"" })).json();
    assert_eq!(reads["ok"], false, "{reads}");
    assert!(reads["errors"][0]["message"].as_str().unwrap().contains("--secure"), "{reads}");
    assert_eq!(reads["errors"][0]["column"], 16, "{reads}");
}

#[test]
fn stop_ends_the_scan_and_a_new_run_replaces_the_old_one() {
    // One worker and a slow query (about 2 s over these games on one core).
    let server = start(&["--threads", "1", GAMES]);
    let tab = server.tab();
    let slow = json!({ "tab": tab, "query": "echo (s t) sidetomove == sidetomove" });
    assert_eq!(server.post("/api/run", slow.clone()).json()["ok"], true);
    let started = Instant::now();
    loop {
        let s = server.get(&format!("/api/status?tab={tab}")).json();
        if s["read"].as_u64().unwrap_or(0) > 0 || s["state"] != "running" {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no game was read");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(server.post("/api/stop", json!({ "tab": tab })).status, 200);
    let (_, status) = server.wait(&tab);
    assert_eq!(status["state"], "stopped", "{status}");
    assert!(status["read"].as_u64().unwrap() < 1500, "{status}");
    let partial = server.get(&format!("/api/download?tab={tab}"));
    assert_eq!(partial.header("x-cqlrs-partial"), Some("1"));

    // A second run in the same tab stops the first: only the second's matches are listed.
    assert_eq!(server.post("/api/run", slow).json()["ok"], true);
    assert_eq!(server.post("/api/run", json!({ "tab": tab, "query": "btm mate" })).json()["ok"], true);
    let (rows, status) = server.wait(&tab);
    assert_eq!(status["state"], "done");
    assert_eq!(rows.len() as u64, status["matched"].as_u64().unwrap());
    assert_eq!(status["read"], 1500);
}

#[test]
fn beyond_localhost_every_call_needs_the_token() {
    let server = start(&["--listen", "127.0.0.1", GAMES]);
    let token = server.token.clone().expect("a token in the URL");
    assert!(token.len() >= 32);
    assert_eq!(server.post("/api/tab", json!({})).status, 401);
    let wrong = [server.host(), "X-Cqlrs-Token: 0000".into(), "Content-Type: application/json".into()];
    assert_eq!(server.raw("POST", "/api/tab", &wrong, b"{}").status, 401);
    let right = [server.host(), format!("X-Cqlrs-Token: {token}"), "Content-Type: application/json".into()];
    assert_eq!(server.raw("POST", "/api/tab", &right, b"{}").status, 200);
    assert_eq!(server.get(&format!("/api/surveys?token={token}")).status, 200);
    // The page itself holds nothing secret.
    assert_eq!(server.get("/").status, 200);
}

#[test]
fn the_survey_of_a_folder_gives_its_report() {
    let dir = temp_dir("serve-survey");
    write(&dir, "mate.cql", "mate");
    write(&dir, "check.cql", "cql() check");
    write(&dir, "broken.cql", "cql() mtae");
    let folder = dir.to_str().unwrap().to_string();
    let server = start(&["--survey", &folder, GAMES]);
    let tab = server.tab();
    assert_eq!(server.post("/api/survey", json!({ "tab": tab, "folder": 5 })).status, 404);
    let r = server.post("/api/survey", json!({ "tab": tab, "folder": 0 })).json();
    assert_eq!((r["themes"].as_u64(), r["left_out"].as_u64()), (Some(2), Some(1)), "{r}");
    let started = Instant::now();
    let status = loop {
        let s = server.get(&format!("/api/survey-status?tab={tab}")).json();
        if s["state"] != "running" {
            break s;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "the survey did not end");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status["state"], "done", "{status}");
    assert_eq!(status["read"], 1500);
    let report = server.get(&format!("/survey/report.html?tab={tab}"));
    assert_eq!(report.status, 200);
    let html = String::from_utf8_lossy(&report.body);
    assert!(html.contains("theme-table") && html.contains("check") && html.contains("broken.cql"));
    assert!(report.header("content-security-policy").unwrap().contains("default-src 'none'"));
}

#[test]
fn the_server_stops_by_itself_after_idle_exit() {
    let mut server = start(&["--idle-exit", "1", GAMES]);
    assert_eq!(server.get("/").status, 200);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the server did not stop");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
    assert!(started.elapsed() >= Duration::from_millis(900));
}

#[test]
fn bad_starts_are_refused_with_a_message() {
    let o = cqlrs(&["serve", "--port", "0", "no-such-file.pgn"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(common::stderr(&o).contains("no-such-file.pgn"));
    let o = cqlrs(&["serve", "--port", "0", "--survey", "no-such-dir", GAMES]);
    assert_eq!(o.status.code(), Some(2));
    let o = cqlrs(&["serve"]);
    assert_eq!(o.status.code(), Some(2));
}
