//! `cqlrs serve`: a page in the browser to write a query, watch its matches arrive, step
//! through a matching game on a board, and keep the matches as PGN.
//!
//! Takes in: `cqlrs serve [--port N] [--listen ADDR] [--survey DIR]… [--allow-files DIR]…
//! [--threads N] INPUT…` (PGN files, plain or compressed).
//! Gives out: one HTTP server on 127.0.0.1 (its URL printed on stdout) serving the page,
//! its built-in script and style, and a small JSON API (see docs/serve.md); exit status 0
//! when stopped by SIGINT or SIGTERM (or after `--idle-exit` seconds without a request), 2
//! when it cannot start.
//! Must never: listen beyond 127.0.0.1 unless `--listen` is given (and then answer no API
//! call without the token printed with the URL), serve any path but the page's own, let a
//! script reach a file that the file policy (`--secure` unless `--allow-files`) refuses,
//! or read a request body larger than [`MAX_BODY_BYTES`].
//!
//! Every query is compiled by the one compile path ([`crate::CompileOptions`]) and run by
//! the one scan ([`crate::scan::run_sources`]) with the `--json-pgn` output format: each
//! match arrives as one line holding the game's tags, its matching plies and the very
//! bytes `-o` writes for it, so the download is the concatenation of those bytes.

mod game;
mod session;
mod survey;

use std::io::Read;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{CommandFactory, Parser};
use tiny_http::{Header, Method, Request, Response};

use super::{EXIT_ERROR, EXIT_MATCH};
use session::Tabs;

/// Lock a mutex, also when a thread panicked while holding it (the data is still whole:
/// every update is a single assignment or push).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// The largest request body read (a query, a survey request): larger ones are refused.
pub const MAX_BODY_BYTES: usize = 256 << 10;
/// The longest request line (path and query string) answered.
pub const MAX_URL_BYTES: usize = 4096;
/// Requests answered in one second, all tabs together; more are refused with 429.
pub const MAX_REQUESTS_PER_SECOND: u64 = 400;
/// Threads answering requests (each answers one request at a time).
const HANDLERS: usize = 4;
/// The stop flag's value when `--idle-exit` ends the server (signals set their number).
const IDLE_STOP: usize = 1000;

/// The arguments of `cqlrs serve`.
#[derive(Parser, Debug)]
#[command(
    name = "cqlrs serve",
    about = "Explore PGN archives in the browser: write a query, see its matches on a board, download them",
    long_about = "Serve a page on 127.0.0.1 to write a query (CQL 6, legacy CQL or YACPDB), run it over the \
                  given PGN files (plain or compressed), watch the matches arrive, step through a matching \
                  game on a board and download the matches as the PGN `-o` writes. Scripts run under the \
                  file policy of `--secure` unless `--allow-files` is given."
)]
pub struct ServeArgs {
    /// PGN files to serve (plain, gzip, zstd or bzip2)
    #[arg(value_name = "INPUT", required = true)]
    pub input: Vec<String>,
    /// Port to listen on (0: any free port)
    #[arg(long = "port", value_name = "N", default_value_t = 8644)]
    pub port: u16,
    /// Listen on this address instead of 127.0.0.1 (every API call then needs the token printed with the URL)
    #[arg(long = "listen", value_name = "ADDR")]
    pub listen: Option<String>,
    /// A folder of `.cql` and `.yacpdb` scripts whose survey report the page may run (repeatable)
    #[arg(long = "survey", value_name = "DIR")]
    pub survey: Vec<String>,
    /// Let scripts read and write files in this folder (repeatable); without it scripts reach no file, as under `--secure`
    #[arg(long = "allow-files", value_name = "DIR")]
    pub allow_files: Vec<String>,
    /// Worker threads of each scan (default: all cores)
    #[arg(long = "threads", value_name = "N")]
    pub threads: Option<usize>,
    /// Stop the server after this many seconds without a request (default: run until stopped)
    #[arg(long = "idle-exit", value_name = "SECONDS")]
    pub idle_exit: Option<u64>,
}

/// The clap description of `cqlrs serve` (for completions and the manual page).
pub fn command() -> clap::Command {
    ServeArgs::command().name("serve")
}

/// Why a request was refused: the HTTP status and a message for the page. The one error
/// type of the server.
#[derive(Debug)]
pub struct ApiError {
    /// HTTP status code.
    pub status: u16,
    /// What went wrong, in one sentence.
    pub message: String,
}

impl ApiError {
    /// An error with this status and message.
    pub fn new(status: u16, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into() }
    }
}

/// What the server was started with, shared by every handler.
pub struct Settings {
    /// The archive the page's queries run over.
    pub archive: session::Archive,
    /// The folders whose survey the page may run.
    pub survey_dirs: Vec<String>,
    /// The file policy of every script.
    pub files: crate::eval::FilePolicy,
    /// Worker threads of each scan.
    pub threads: usize,
    /// The token every API call must carry (`--listen` only).
    pub token: Option<String>,
    /// The `Host` header values accepted (127.0.0.1 mode only): a page reached by another
    /// name (a rebound DNS name) is refused.
    pub hosts: Vec<String>,
}

/// Run `cqlrs serve` with the arguments after the word `serve`.
pub fn run(rest: &[String]) -> i32 {
    let argv = std::iter::once("cqlrs serve".to_string()).chain(rest.iter().cloned());
    let args = match ServeArgs::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_ERROR } else { EXIT_MATCH };
        }
    };
    match serve(&args) {
        Ok(()) => EXIT_MATCH,
        Err(message) => {
            say!("{message}");
            EXIT_ERROR
        }
    }
}

fn serve(args: &ServeArgs) -> Result<(), String> {
    for input in &args.input {
        let meta = std::fs::metadata(input).map_err(|e| format!("cqlrs serve: {input}: {e}"))?;
        if !meta.is_file() {
            return Err(format!("cqlrs serve: {input}: not a file"));
        }
    }
    for dir in &args.survey {
        if !std::path::Path::new(dir).is_dir() {
            return Err(format!("cqlrs serve: --survey {dir}: not a folder"));
        }
    }
    if args.threads == Some(0) {
        return Err("cqlrs serve: `--threads 0` is not allowed: give a number of at least 1".into());
    }
    let files = if args.allow_files.is_empty() {
        crate::eval::FilePolicy::forbidden()
    } else {
        let allowed: Vec<&std::path::Path> = args.allow_files.iter().map(std::path::Path::new).collect();
        crate::eval::FilePolicy::confined(&[], &allowed)?
    };
    let (address, token) = match &args.listen {
        None => ("127.0.0.1".to_string(), None),
        Some(a) => (a.clone(), Some(random_hex(32))),
    };
    let server = tiny_http::Server::http((address.as_str(), args.port))
        .map_err(|e| format!("cqlrs serve: cannot listen on {address}:{}: {e}", args.port))?;
    let port = server.server_addr().to_ip().map_or(args.port, |a| a.port());
    let shown_host = if address.contains(':') { format!("[{address}]") } else { address.clone() };
    // Without the port too, as a browser writes it for port 80; a rebound name is never one of these.
    let hosts = vec![
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        "127.0.0.1".to_string(),
        "localhost".to_string(),
    ];
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let settings = Arc::new(Settings {
        archive: session::Archive::files(args.input.clone()),
        survey_dirs: args.survey.clone(),
        files,
        threads,
        token: token.clone(),
        hosts,
    });
    let url = match &token {
        None => format!("http://{shown_host}:{port}/"),
        Some(t) => format!("http://{shown_host}:{port}/?token={t}"),
    };
    crate::output::print_stdout(&format!("cqlrs serve: {url}\n")).map_err(|e| format!("cqlrs serve: {e}"))?;
    say!(
        "cqlrs serve: {} input file(s); open the address above in a browser; Ctrl-C stops the server",
        args.input.len()
    );

    let stop = Arc::new(AtomicUsize::new(0));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register_usize(signal, stop.clone(), signal as usize);
    }
    let server = Arc::new(server);
    let tabs = Arc::new(Tabs::new());
    // Milliseconds from `started` to the last request (for `--idle-exit`).
    let started = Instant::now();
    let last_request = Arc::new(AtomicU64::new(0));
    let idle_limit = args.idle_exit.map(|s| s.saturating_mul(1000));
    let limiter = Arc::new(RateLimiter::new());
    let mut handlers = Vec::new();
    for _ in 0..HANDLERS {
        let (server, settings, tabs, limiter, stop, last_request) =
            (server.clone(), settings.clone(), tabs.clone(), limiter.clone(), stop.clone(), last_request.clone());
        let handler = std::thread::Builder::new()
            .name("cqlrs-serve".into())
            .stack_size(64 << 20)
            .spawn(move || {
                while stop.load(Ordering::Relaxed) == 0 {
                    match server.recv_timeout(Duration::from_millis(200)) {
                        Ok(Some(request)) => {
                            last_request.fetch_max(started.elapsed().as_millis() as u64, Ordering::Relaxed);
                            answer(request, &settings, &tabs, &limiter);
                            last_request.fetch_max(started.elapsed().as_millis() as u64, Ordering::Relaxed);
                        }
                        Ok(None) => {}
                        Err(_) => std::thread::sleep(Duration::from_millis(50)),
                    }
                    if let Some(limit) = idle_limit {
                        let idle =
                            (started.elapsed().as_millis() as u64).saturating_sub(last_request.load(Ordering::Relaxed));
                        if idle > limit {
                            let _ = stop.compare_exchange(0, IDLE_STOP, Ordering::Relaxed, Ordering::Relaxed);
                        }
                    }
                }
            })
            .map_err(|e| format!("cqlrs serve: cannot start a thread: {e}"))?;
        handlers.push(handler);
    }
    for h in handlers {
        let _ = h.join();
    }
    tabs.stop_all();
    if stop.load(Ordering::Relaxed) == IDLE_STOP {
        say!("cqlrs serve: stopped after {} s without a request", args.idle_exit.unwrap_or(0));
    } else {
        say!("cqlrs serve: stopped");
    }
    Ok(())
}

/// A hexadecimal string of `digits` random digits (tokens, tab names), from the
/// operating system's randomness as the standard library's hash keys draw it.
pub fn random_hex(digits: usize) -> String {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut out = String::new();
    while out.len() < digits {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out.truncate(digits);
    out
}

/// Counts the requests of the current second.
struct RateLimiter {
    window: Mutex<(Instant, u64)>,
}

impl RateLimiter {
    fn new() -> RateLimiter {
        RateLimiter { window: Mutex::new((Instant::now(), 0)) }
    }

    /// May one more request be answered now?
    fn admit(&self) -> bool {
        let mut w = match self.window.lock() {
            Ok(w) => w,
            Err(p) => p.into_inner(),
        };
        if w.0.elapsed() >= Duration::from_secs(1) {
            *w = (Instant::now(), 0);
        }
        w.1 += 1;
        w.1 <= MAX_REQUESTS_PER_SECOND
    }
}

/// The page's own files: path, content type, bytes.
const ASSETS: [(&str, &str, &[u8]); 4] = [
    ("/", "text/html; charset=utf-8", include_bytes!("../../../assets/serve/index.html")),
    ("/app.js", "text/javascript; charset=utf-8", include_bytes!("../../../assets/serve/app.js")),
    ("/style.css", "text/css; charset=utf-8", include_bytes!("../../../assets/serve/style.css")),
    ("/favicon.svg", "image/svg+xml", include_bytes!("../../../assets/serve/favicon.svg")),
];

/// What a handler gives back: status, content type, extra headers, body.
pub struct Reply {
    status: u16,
    content_type: &'static str,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

impl Reply {
    /// A JSON reply with status 200.
    pub fn json(value: serde_json::Value) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json",
            headers: Vec::new(),
            body: value.to_string().into_bytes(),
        }
    }

    fn error(e: ApiError) -> Reply {
        let mut r = Reply::json(serde_json::json!({ "error": e.message }));
        r.status = e.status;
        r
    }
}

fn header<'a>(request: &'a Request, name: &'static str) -> Option<&'a str> {
    request.headers().iter().find(|h| h.field.equiv(name)).map(|h| h.value.as_str())
}

/// The query string's value of `name` (percent-decoded).
pub fn param(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| percent_decode(v))
    })
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"), 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Check, route and answer one request; it is always answered.
fn answer(mut request: Request, settings: &Settings, tabs: &Tabs, limiter: &RateLimiter) {
    let reply = match check(&mut request, settings, limiter) {
        Err(e) => Reply::error(e),
        Ok(body) => route(&request, body, settings, tabs).unwrap_or_else(Reply::error),
    };
    let mut response = Response::from_data(reply.body).with_status_code(reply.status);
    let mut headers = vec![
        ("Content-Type", reply.content_type.to_string()),
        ("Cache-Control", "no-store".to_string()),
        ("X-Content-Type-Options", "nosniff".to_string()),
        ("Referrer-Policy", "no-referrer".to_string()),
        ("Cross-Origin-Resource-Policy", "same-origin".to_string()),
    ];
    if !reply.headers.iter().any(|(k, _)| *k == "Content-Security-Policy") {
        headers.push((
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-src 'self'; connect-src 'self'; \
             frame-ancestors 'self'; form-action 'none'; base-uri 'none'"
                .to_string(),
        ));
    }
    headers.extend(reply.headers);
    for (name, value) in headers {
        if let Ok(h) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(h);
        }
    }
    let _ = request.respond(response);
}

/// The checks every request passes before it is routed: size, rate, host, origin and
/// token. Gives the body (empty for GET).
fn check(request: &mut Request, settings: &Settings, limiter: &RateLimiter) -> Result<Vec<u8>, ApiError> {
    if !limiter.admit() {
        return Err(ApiError::new(429, "too many requests: wait a moment"));
    }
    if request.url().len() > MAX_URL_BYTES {
        return Err(ApiError::new(414, "the address is too long"));
    }
    if settings.token.is_none() {
        // 127.0.0.1 only: a page that reached the server under another name (DNS
        // rebinding) is not answered.
        let host = header(request, "Host").unwrap_or("");
        if !settings.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return Err(ApiError::new(403, "unexpected Host header: open the address the server printed"));
        }
    }
    if let Some(origin) = header(request, "Origin") {
        let host = header(request, "Host").unwrap_or("");
        if origin != format!("http://{host}") && origin != "null" {
            return Err(ApiError::new(403, "requests from other sites are refused"));
        }
    }
    let (path, query) = request.url().split_once('?').unwrap_or((request.url(), ""));
    if let Some(token) = &settings.token {
        if path.starts_with("/api/") || path.starts_with("/survey/") {
            let given = header(request, "X-Cqlrs-Token").map(str::to_string).or_else(|| param(query, "token"));
            if !given.is_some_and(|g| constant_time_eq(g.as_bytes(), token.as_bytes())) {
                return Err(ApiError::new(401, "missing or wrong token: open the address the server printed"));
            }
        }
    }
    let mut body = Vec::new();
    if *request.method() == Method::Post {
        if request.body_length().is_some_and(|n| n > MAX_BODY_BYTES) {
            return Err(ApiError::new(413, format!("the request is larger than {} KiB", MAX_BODY_BYTES >> 10)));
        }
        let read = request.as_reader().take(MAX_BODY_BYTES as u64 + 1).read_to_end(&mut body);
        if read.is_err() {
            return Err(ApiError::new(400, "the request body could not be read"));
        }
        if body.len() > MAX_BODY_BYTES {
            return Err(ApiError::new(413, format!("the request is larger than {} KiB", MAX_BODY_BYTES >> 10)));
        }
        // JSON only: a form of another site cannot send it without the browser asking first.
        if !header(request, "Content-Type").is_some_and(|t| t.starts_with("application/json")) {
            return Err(ApiError::new(415, "calls send JSON (Content-Type: application/json)"));
        }
    }
    Ok(body)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// The JSON object of a POST body.
fn json_body(body: &[u8]) -> Result<serde_json::Value, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::new(400, format!("the request is not JSON: {e}")))
}

/// A string field of a JSON body.
fn field<'a>(value: &'a serde_json::Value, name: &str) -> Result<&'a str, ApiError> {
    value.get(name).and_then(|v| v.as_str()).ok_or_else(|| ApiError::new(400, format!("`{name}` is missing")))
}

fn route(request: &Request, body: Vec<u8>, settings: &Settings, tabs: &Tabs) -> Result<Reply, ApiError> {
    let (path, query) = request.url().split_once('?').unwrap_or((request.url(), ""));
    let method = request.method().clone();
    match (&method, path) {
        (Method::Get | Method::Head, _) if ASSETS.iter().any(|(p, _, _)| *p == path) => {
            let (_, content_type, bytes) = ASSETS.iter().find(|(p, _, _)| *p == path).expect("checked");
            Ok(Reply { status: 200, content_type, headers: Vec::new(), body: bytes.to_vec() })
        }
        (Method::Post, "/api/tab") => Ok(Reply::json(tabs.open(settings))),
        (Method::Post, "/api/check") => {
            let v = json_body(&body)?;
            Ok(Reply::json(session::check(field(&v, "query")?, field(&v, "syntax").unwrap_or("auto"), settings)))
        }
        (Method::Post, "/api/run") => {
            let v = json_body(&body)?;
            let tab = tabs.get(field(&v, "tab")?)?;
            Ok(Reply::json(tabs.run(&tab, field(&v, "query")?, field(&v, "syntax").unwrap_or("auto"), settings)?))
        }
        (Method::Post, "/api/stop") => {
            let v = json_body(&body)?;
            let tab = tabs.get(field(&v, "tab")?)?;
            Ok(Reply::json(tab.stop()))
        }
        (Method::Get, "/api/status") => {
            let tab = tabs.get(&param(query, "tab").unwrap_or_default())?;
            let since = param(query, "since").and_then(|s| s.parse().ok()).unwrap_or(0);
            Ok(Reply::json(tab.status(since)))
        }
        (Method::Get, "/api/game") => {
            let tab = tabs.get(&param(query, "tab").unwrap_or_default())?;
            let index =
                param(query, "i").and_then(|s| s.parse().ok()).ok_or_else(|| ApiError::new(400, "`i` is missing"))?;
            Ok(Reply::json(tab.game(index)?))
        }
        (Method::Get, "/api/download") => {
            let tab = tabs.get(&param(query, "tab").unwrap_or_default())?;
            let (bytes, partial) = tab.download()?;
            Ok(Reply {
                status: 200,
                content_type: "application/x-chess-pgn",
                headers: vec![
                    ("Content-Disposition", "attachment; filename=\"cqlrs-matches.pgn\"".to_string()),
                    ("X-Cqlrs-Partial", if partial { "1" } else { "0" }.to_string()),
                ],
                body: bytes,
            })
        }
        (Method::Get, "/api/surveys") => Ok(Reply::json(serde_json::json!({ "folders": settings.survey_dirs }))),
        (Method::Post, "/api/survey") => {
            let v = json_body(&body)?;
            let tab = tabs.get(field(&v, "tab")?)?;
            let folder = v.get("folder").and_then(|f| f.as_u64()).unwrap_or(0) as usize;
            Ok(Reply::json(tabs.survey(&tab, folder, settings)?))
        }
        (Method::Get, "/api/survey-status") => {
            let tab = tabs.get(&param(query, "tab").unwrap_or_default())?;
            Ok(Reply::json(tab.survey_job().map_or_else(|| serde_json::json!({ "state": "idle" }), |j| j.status())))
        }
        (Method::Get, "/survey/report.html") => {
            let tab = tabs.get(&param(query, "tab").unwrap_or_default())?;
            Ok(Reply {
                status: 200,
                content_type: "text/html; charset=utf-8",
                // The report is one self-contained page with inline styles and no script.
                headers: vec![(
                    "Content-Security-Policy",
                    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'".to_string(),
                )],
                body: tab.survey_report()?.into_bytes(),
            })
        }
        (Method::Get | Method::Post, p) if p.starts_with("/api/") || p.starts_with("/survey/") => {
            Err(ApiError::new(404, format!("no such call: {} {p}", method)))
        }
        (Method::Get | Method::Head, _) => Err(ApiError::new(404, "no such page")),
        _ => Err(ApiError::new(405, "method not allowed")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_parameters_are_decoded() {
        assert_eq!(param("tab=ab&i=12", "i").as_deref(), Some("12"));
        assert_eq!(param("q=a%20b+c%2", "q").as_deref(), Some("a b c%2"));
        assert_eq!(param("q=%zz", "q").as_deref(), Some("%zz"));
        assert_eq!(param("x", "y"), None);
    }

    #[test]
    fn random_tokens_differ_and_have_their_length() {
        let a = random_hex(32);
        let b = random_hex(32);
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn the_rate_limiter_refuses_past_its_bound() {
        let limiter = RateLimiter::new();
        let admitted = (0..MAX_REQUESTS_PER_SECOND + 10).filter(|_| limiter.admit()).count() as u64;
        assert!(admitted <= MAX_REQUESTS_PER_SECOND && admitted >= MAX_REQUESTS_PER_SECOND - 10);
    }
}
