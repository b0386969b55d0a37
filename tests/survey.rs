//! `cqlrs survey`: many scripts in one pass give, theme by theme, exactly what separate
//! runs of each script give; a script that does not compile is left out; the three
//! languages mix; and the report opens in a real browser (headless Chromium).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{stderr, temp_dir, BIN};

/// The bundled PGN files.
const DATA: [&str; 3] = [
    "data/lichess-2016-05-first1500.pgn",
    "data/lichess-2017-05-sample.pgn",
    "data/gallery/pychess-studies-and-puzzles.pgn",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A survey of `scripts` over `inputs` into `outdir`.
fn survey(inputs: &[String], scripts: &[String], outdir: &Path, extra: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.arg("survey");
    for i in inputs {
        cmd.arg("-i").arg(i);
    }
    cmd.args(scripts).arg("-o").arg(outdir).args(extra);
    cmd.stdin(Stdio::null()).output().expect("cqlrs survey runs")
}

/// The PGN a separate run of `script` over `inputs` writes (`extra` names the query for
/// a YACPDB text given with `--yacpdb`).
fn separate_run(inputs: &[String], script: &Path, out: &Path) -> Vec<u8> {
    let mut cmd = Command::new(BIN);
    for i in inputs {
        cmd.arg("-i").arg(i);
    }
    let o = cmd.arg(script).arg("-o").arg(out).stdin(Stdio::null()).output().expect("cqlrs runs");
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}: {}", script.display(), stderr(&o));
    std::fs::read(out).unwrap_or_default()
}

/// The game numbers of a CQL-style PGN output, from its `{Game number N}` comments... and
/// independently of them, from its `[Event` tags (a count).
fn game_numbers(pgn: &[u8]) -> Vec<u64> {
    let text = String::from_utf8_lossy(pgn);
    let mut numbers = Vec::new();
    for part in text.split("Game number ").skip(1) {
        let digits: String = part.chars().take_while(|c| c.is_ascii_digit()).collect();
        numbers.push(digits.parse().expect("a number after `Game number`"));
    }
    numbers
}

/// One column of `summary.csv`, by theme name.
fn summary_column(outdir: &Path, column: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(outdir.join("summary.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == column).unwrap_or_else(|| panic!("no column {column}"));
    lines
        .map(|l| {
            let fields: Vec<&str> = l.split(',').collect();
            (fields[0].to_string(), fields[at].to_string())
        })
        .collect()
}

fn gallery_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("examples/cql"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cql"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn data_inputs() -> Vec<String> {
    DATA.iter().map(|d| root().join(d).to_string_lossy().into_owned()).collect()
}

#[test]
fn a_survey_of_the_gallery_writes_what_separate_runs_write() {
    let dir = temp_dir("gallery");
    let outdir = dir.join("out");
    let inputs = data_inputs();
    let gallery = root().join("examples/cql").to_string_lossy().into_owned();
    let o = survey(&inputs, &[gallery], &outdir, &["--threads", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let names = gallery_names();
    assert!(names.len() >= 47, "{} gallery scripts", names.len());
    // The separate runs, on two threads of our own.
    let (left, right) = names.split_at(names.len() / 2);
    let compare = |part: Vec<String>| {
        let mut failures = Vec::new();
        for name in part {
            let script = root().join("examples/cql").join(format!("{name}.cql"));
            let alone = separate_run(&inputs, &script, &dir.join(format!("{name}-alone.pgn")));
            let surveyed = std::fs::read(outdir.join(format!("{name}.pgn"))).unwrap();
            if game_numbers(&alone) != game_numbers(&surveyed) {
                failures.push(format!("{name}: game numbers differ"));
            } else if alone != surveyed {
                failures.push(format!("{name}: same games, different bytes"));
            }
        }
        failures
    };
    let failures = std::thread::scope(|scope| {
        let handle = scope.spawn(|| compare(left.to_vec()));
        let mut failures = compare(right.to_vec());
        failures.extend(handle.join().unwrap());
        failures
    });
    assert!(failures.is_empty(), "survey and separate runs disagree:\n{}", failures.join("\n"));
    // The summary counts the games each theme's PGN holds.
    for (theme, games) in summary_column(&outdir, "games_matched") {
        let pgn = std::fs::read(outdir.join(format!("{theme}.pgn"))).unwrap();
        assert_eq!(games.parse::<usize>().unwrap(), game_numbers(&pgn).len(), "{theme}");
    }
    // The first match's locator is the first game of the theme's PGN.
    for (theme, first) in summary_column(&outdir, "first_game") {
        let pgn = std::fs::read(outdir.join(format!("{theme}.pgn"))).unwrap();
        assert_eq!(game_numbers(&pgn).first().map(|n| n.to_string()).unwrap_or_default(), first, "{theme}");
    }
    // Every table is there, and the report names every theme.
    for table in ["summary.json", "cooccurrence.csv", "breakdown.csv", "report.html"] {
        assert!(outdir.join(table).is_file(), "{table} missing");
    }
    let pairs = std::fs::read_to_string(outdir.join("cooccurrence.csv")).unwrap().lines().count() - 1;
    assert_eq!(pairs, names.len() * (names.len() - 1) / 2);
    let report = std::fs::read_to_string(outdir.join("report.html")).unwrap();
    for name in &names {
        assert!(report.contains(&format!(">{name}</a>")), "report lacks {name}");
    }
}

/// A few games of hand-checked content: Scholar's mate (a mate and a check), a game with a
/// white king going out and back (Ke2 … Ke1), and a quiet draw.
const SMALL_PGN: &str = r#"[Event "Scholar"]
[White "A"]
[Black "B"]
[Result "1-0"]
[Date "1999.01.01"]
[ECO "C20"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0

[Event "King walk"]
[White "C"]
[Black "D"]
[Result "0-1"]
[Date "2005.??.??"]

1. e4 e5 2. Ke2 Nc6 3. Ke1 Nf6 4. d3 Bc5 0-1

[Event "Quiet"]
[White "E"]
[Black "F"]
[Result "1/2-1/2"]

1. d4 d5 2. c4 e6 1/2-1/2

"#;

#[test]
fn the_three_languages_mix_and_give_what_their_own_runs_give() {
    let dir = temp_dir("mixed");
    let pgn = dir.join("small.pgn");
    std::fs::write(&pgn, SMALL_PGN).unwrap();
    let scripts = dir.join("scripts");
    std::fs::create_dir_all(&scripts).unwrap();
    // CQL 6: a mate (game 1 only, by the moves above).
    std::fs::write(scripts.join("mate.cql"), "cql() mate\n").unwrap();
    // Legacy CQL: a check (game 1: Qxf7#).
    std::fs::write(scripts.join("check.cql"), "(match (position :check))\n").unwrap();
    // YACPDB: the white king goes out and comes straight back (game 2: Ke2, Ke1).
    std::fs::write(scripts.join("king-back.yacpdb"), "TraceBack(wK, 1, *)\n").unwrap();
    // A header-only CQL 6 query: Black won (game 2).
    std::fs::write(scripts.join("black-wins.cql"), "cql() result 0-1\n").unwrap();
    // A sorting CQL 6 query: games by their last move number, highest first (game 2 reaches
    // move 5 with White to move, game 1 ends on Black's 4th move, game 3 at move 3).
    std::fs::write(scripts.join("longest.cql"), "cql() sort \"move number\" movenumber\n").unwrap();
    let outdir = dir.join("out");
    let inputs = vec![pgn.to_string_lossy().into_owned()];
    let o = survey(&inputs, &[scripts.to_string_lossy().into_owned()], &outdir, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let expected: [(&str, &[u64]); 5] =
        [("mate", &[1]), ("check", &[1]), ("king-back", &[2]), ("black-wins", &[2]), ("longest", &[2, 1, 3])];
    for (name, games) in expected {
        let surveyed = std::fs::read(outdir.join(format!("{name}.pgn"))).unwrap();
        assert_eq!(game_numbers(&surveyed), games, "{name}");
        let ext = if name == "king-back" { "yacpdb" } else { "cql" };
        let alone =
            separate_run(&inputs, &scripts.join(format!("{name}.{ext}")), &dir.join(format!("{name}-alone.pgn")));
        assert_eq!(alone, surveyed, "{name}: the survey's PGN differs from the script's own run");
    }
    let languages = summary_column(&outdir, "language");
    assert!(languages.contains(&("check".into(), "legacy".into())), "{languages:?}");
    assert!(languages.contains(&("king-back".into(), "yacpdb".into())), "{languages:?}");
    assert!(languages.contains(&("mate".into(), "cql6".into())), "{languages:?}");
    // Games 1 and 2 are matched by two themes each; mate and check share game 1.
    let pairs = std::fs::read_to_string(outdir.join("cooccurrence.csv")).unwrap();
    assert!(pairs.lines().any(|l| l == "check,mate,1" || l == "mate,check,1"), "{pairs}");
    assert!(pairs.lines().any(|l| l == "black-wins,king-back,1" || l == "king-back,black-wins,1"), "{pairs}");
    // The breakdown: game 1 is a 1-0 in ECO group C from the 1990s; game 2 from the 2000s.
    let breakdown = std::fs::read_to_string(outdir.join("breakdown.csv")).unwrap();
    for row in [
        "mate,result,1-0,1",
        "mate,eco,C,1",
        "mate,decade,1990s,1",
        "king-back,decade,2000s,1",
        "(all games),result,1/2-1/2,1",
    ] {
        assert!(breakdown.lines().any(|l| l == row), "breakdown.csv lacks `{row}`:\n{breakdown}");
    }
    // The first match's locator: game 2 starts after game 1's bytes.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(outdir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(json["games_read"], 3);
    let king = json["themes"].as_array().unwrap().iter().find(|t| t["theme"] == "king-back").unwrap();
    let second_game_offset = SMALL_PGN.find("[Event \"King walk\"]").unwrap();
    assert_eq!(king["first_match"]["offset"], second_game_offset as u64);
    assert_eq!(king["first_match"]["game"], 2);
}

#[test]
fn a_script_that_does_not_compile_is_reported_and_left_out() {
    let dir = temp_dir("bad");
    let pgn = dir.join("small.pgn");
    std::fs::write(&pgn, SMALL_PGN).unwrap();
    let good = dir.join("mate.cql");
    std::fs::write(&good, "cql() mate\n").unwrap();
    let bad = dir.join("broken.cql");
    std::fs::write(&bad, "cql()\ncheck ]\n").unwrap();
    let other = dir.join("check.cql");
    std::fs::write(&other, "cql() check\n").unwrap();
    let outdir = dir.join("out");
    let scripts: Vec<String> = [&good, &bad, &other].iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let o = survey(&[pgn.to_string_lossy().into_owned()], &scripts, &outdir, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("broken.cql") && err.contains("left out"), "{err}");
    // The error points at the line of the bad text.
    assert!(err.contains(":2:"), "no line:column in {err}");
    assert!(!outdir.join("broken.pgn").exists());
    assert_eq!(game_numbers(&std::fs::read(outdir.join("mate.pgn")).unwrap()), [1]);
    // Check: game 1 (Qxf7#) and game 2? No: Ke2 is not check. Only game 1.
    assert_eq!(game_numbers(&std::fs::read(outdir.join("check.pgn")).unwrap()), [1]);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(outdir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(json["failed"].as_array().unwrap().len(), 1);
    assert!(json["failed"][0]["script"].as_str().unwrap().ends_with("broken.cql"));
    assert_eq!(json["themes"].as_array().unwrap().len(), 2);
}

#[test]
fn a_survey_never_writes_into_a_directory_of_other_files() {
    let dir = temp_dir("guard");
    let pgn = dir.join("small.pgn");
    std::fs::write(&pgn, SMALL_PGN).unwrap();
    let script = dir.join("mate.cql");
    std::fs::write(&script, "cql() mate\n").unwrap();
    // The directory holding the input and the script is not a survey's output.
    let o = survey(&[pgn.to_string_lossy().into_owned()], &[script.to_string_lossy().into_owned()], &dir, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not empty"), "{}", stderr(&o));
    assert!(!dir.join("mate.pgn").exists() && !dir.join("report.html").exists());
    // No script compiles: an error, nothing written.
    let bad = dir.join("bad.cql");
    std::fs::write(&bad, "cql() (((\n").unwrap();
    let o = survey(&[pgn.to_string_lossy().into_owned()], &[bad.to_string_lossy().into_owned()], &dir.join("o"), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!dir.join("o").join("report.html").exists());
}

/// The pixels of a PNG (8-bit RGB or RGBA, not interlaced), decoded by hand (zlib from
/// flate2): rows of `width * channels` bytes.
fn png_pixels(bytes: &[u8]) -> (usize, usize, usize, Vec<u8>) {
    use std::io::Read;
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let mut at = 8;
    let (mut width, mut height, mut channels) = (0, 0, 0);
    let mut data = Vec::new();
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let kind = &bytes[at + 4..at + 8];
        let body = &bytes[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(body[0..4].try_into().unwrap()) as usize;
                height = u32::from_be_bytes(body[4..8].try_into().unwrap()) as usize;
                assert_eq!(body[8], 8, "8-bit samples expected");
                channels = match body[9] {
                    2 => 3,
                    6 => 4,
                    other => panic!("colour type {other}"),
                };
                assert_eq!(body[12], 0, "interlaced PNG");
            }
            b"IDAT" => data.extend_from_slice(body),
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&data[..]).read_to_end(&mut raw).unwrap();
    let stride = width * channels;
    let mut pixels = vec![0u8; stride * height];
    for y in 0..height {
        let filter = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for x in 0..stride {
            let a = if x >= channels { pixels[y * stride + x - channels] as i32 } else { 0 };
            let b = if y > 0 { pixels[(y - 1) * stride + x] as i32 } else { 0 };
            let c = if x >= channels && y > 0 { pixels[(y - 1) * stride + x - channels] as i32 } else { 0 };
            let predicted = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => (a + b) / 2,
                4 => {
                    let p = a + b - c;
                    let (pa, pb, pc) = ((p - a).abs(), (p - b).abs(), (p - c).abs());
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                other => panic!("PNG filter {other}"),
            };
            pixels[y * stride + x] = (line[x] as i32 + predicted) as u8;
        }
    }
    (width, height, channels, pixels)
}

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"].into_iter().find(|name| {
        Command::new(name)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

#[test]
fn the_report_renders_in_headless_chromium() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "chromium is required under CI=true (.ci/run installs it)"
        );
        common::shared::skipped("chromium is not on PATH");
        return;
    };
    let dir = temp_dir("browser");
    let outdir = dir.join("out");
    let names = ["back-rank-mate", "knight-fork", "smothered-mate", "scholars-mate", "skewer", "grimshaw"];
    let scripts: Vec<String> = names
        .iter()
        .map(|n| root().join("examples/cql").join(format!("{n}.cql")).to_string_lossy().into_owned())
        .collect();
    let o = survey(&data_inputs(), &scripts, &outdir, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = outdir.join("report.html");
    let page = std::fs::read_to_string(&report).unwrap();
    // Self-contained: nothing is fetched from another host.
    for needle in ["http://", "https://", "<script", "<link", "@import", "url("] {
        let outside = page.matches(needle).count()
            - page.matches("http://www.w3.org/2000/svg").count() * usize::from(needle == "http://");
        assert_eq!(outside, 0, "report.html refers to `{needle}`");
    }
    let url = format!("file://{}", report.display());
    let common = ["--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--disable-extensions"];
    let profile = format!("--user-data-dir={}", dir.join("profile").display());
    // `timeout` (coreutils) ends a browser that hangs instead of the test run.
    let dom = Command::new("timeout")
        .args(["120", browser])
        .args(common)
        .arg(&profile)
        .args(["--enable-logging=stderr", "--v=0", "--virtual-time-budget=2000", "--dump-dom"])
        .arg(&url)
        .stdin(Stdio::null())
        .output()
        .expect("chromium runs");
    let html = String::from_utf8_lossy(&dom.stdout);
    let log = String::from_utf8_lossy(&dom.stderr);
    assert!(html.contains("theme-table"), "no DOM dumped:\n{log}");
    for line in log.lines() {
        let lower = line.to_ascii_lowercase();
        // Chromium logs every console message as `INFO:CONSOLE:LINE] "text", source: …`;
        // the page has no script, so any is a fault.
        assert!(!(lower.contains("uncaught") || lower.contains(":console")), "console message: {line}");
    }
    // The theme table has one row per theme.
    let table = html.split("id=\"theme-table\"").nth(1).unwrap();
    let body = table.split("<tbody>").nth(1).unwrap().split("</tbody>").next().unwrap();
    assert_eq!(body.matches("<tr>").count(), names.len());
    // Every board has 64 squares; every theme that matched has a board.
    let boards: Vec<&str> =
        html.split("<svg class=\"board\"").skip(1).map(|b| b.split("</svg>").next().unwrap()).collect();
    assert_eq!(boards.len(), names.len(), "one example board per theme");
    for board in &boards {
        assert_eq!(board.matches("class=\"sq ").count(), 64);
    }
    // Screenshots on a laptop and a phone: not blank.
    for (name, size) in [("laptop.png", "1280,2400"), ("phone.png", "390,1600")] {
        let shot = dir.join(name);
        let o = Command::new("timeout")
            .args(["120", browser])
            .args(common)
            .arg(&profile)
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("--window-size={size}"))
            .arg(&url)
            .stdin(Stdio::null())
            .output()
            .expect("chromium runs");
        let bytes = std::fs::read(&shot).unwrap_or_else(|_| panic!("no screenshot: {}", stderr(&o)));
        let (width, height, channels, pixels) = png_pixels(&bytes);
        assert!(width > 0 && height > 0);
        let colours: std::collections::HashSet<&[u8]> = pixels.chunks(channels).map(|p| &p[..3]).collect();
        assert!(colours.len() > 50, "{name}: only {} colours: blank?", colours.len());
    }
}

#[test]
fn progress_is_drawn_as_for_a_single_run() {
    let dir = temp_dir("progress");
    let script = root().join("examples/cql/fools-mate.cql").to_string_lossy().into_owned();
    let o = survey(&data_inputs()[..1], &[script], &dir.join("out"), &["--progress", "always"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    // The single run's bar: bytes read of the total, games, ETA.
    assert!(err.contains("ETA") && err.contains("KiB/"), "no progress bar drawn: {err}");
    assert!(err.contains("1500 games read"), "{err}");
}

#[test]
fn partly_read_games_are_reported_by_the_survey() {
    let dir = temp_dir("partly");
    // Game 2 has a move that cannot be played (a bishop through its own pawn): read up to it.
    let pgn = dir.join("g.pgn");
    std::fs::write(
        &pgn,
        "[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n[Result \"*\"]\n\n1. Bb5 e5 *\n\n",
    )
    .unwrap();
    let script = dir.join("mate.cql");
    std::fs::write(&script, "cql() mate\n").unwrap();
    let outdir = dir.join("out");
    let o = survey(&[pgn.to_string_lossy().into_owned()], &[script.to_string_lossy().into_owned()], &outdir, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    // The game's own warning, and the count in the summary line, as a single run gives.
    assert!(err.contains("g.pgn: game 2 (line 5)") && err.contains("illegal move `Bb5`"), "{err}");
    assert!(err.contains("2 games read (0 skipped, 1 read only up to an unplayable move)"), "{err}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(outdir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(json["games_partly_read"], 1);
    let report = std::fs::read_to_string(outdir.join("report.html")).unwrap();
    assert!(report.contains("1 game was read only up to a move that cannot be played"), "{report}");
    // Singular words for single things.
    assert!(report.contains("1 theme over 2 games") && report.contains("1 game (50.0%), 1 position"), "{report}");
}

#[test]
fn csv_cells_are_never_formulas_and_a_missing_script_is_named() {
    let dir = temp_dir("csv-injection");
    let pgn = dir.join("small.pgn");
    std::fs::write(&pgn, SMALL_PGN).unwrap();
    let evil = dir.join("=HYPERLINK(1+1).cql");
    std::fs::write(&evil, "cql() mate\n").unwrap();
    let outdir = dir.join("out");
    let check = dir.join("check.cql");
    std::fs::write(&check, "cql() check\n").unwrap();
    let scripts = [evil.to_string_lossy().into_owned(), check.to_string_lossy().into_owned()];
    let o = survey(&[pgn.to_string_lossy().into_owned()], &scripts, &outdir, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for table in ["summary.csv", "cooccurrence.csv", "breakdown.csv"] {
        let text = std::fs::read_to_string(outdir.join(table)).unwrap();
        assert!(text.contains("\"'=HYPERLINK(1+1)\""), "{table}: {text}");
        // No cell (the text after a comma or at a line start) begins with a formula sign.
        for line in text.lines() {
            for cell in line.split(',') {
                assert!(!cell.starts_with(['=', '+', '-', '@']), "{table}: {line}");
            }
        }
    }
    // A script that does not exist is named before anything is read.
    let o = survey(
        &[pgn.to_string_lossy().into_owned()],
        &[dir.join("mispelt.cql").to_string_lossy().into_owned()],
        &dir.join("out2"),
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("mispelt.cql: no such script file"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("does not compile"), "{}", stderr(&o));
}

#[test]
fn the_report_of_the_gallery_fits_a_laptop_screen() {
    let Some(browser) = chromium() else {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "chromium is required under CI=true");
        common::shared::skipped("chromium is not on PATH");
        return;
    };
    let dir = temp_dir("fits");
    let outdir = dir.join("out");
    let scripts = vec![root().join("examples/cql").to_string_lossy().into_owned()];
    let o = survey(&data_inputs(), &scripts, &outdir, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = std::fs::read_to_string(outdir.join("report.html")).unwrap();
    // The page measured in the browser by a script added to a copy of it (the report
    // itself has none): the page's width and height, the boxes that scroll sideways, and
    // the chart labels that start left of their picture (cut off).
    let probe = r#"<script>document.body.setAttribute("data-m", JSON.stringify({sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth, sh: document.documentElement.scrollHeight, over: [...document.querySelectorAll(".scroll")].filter(e => e.scrollWidth > e.clientWidth + 1).length, clipped: [...document.querySelectorAll("details")].map(d => { d.open = true; return [...d.querySelectorAll("svg.small text.label")].filter(t => t.getBBox().x < 0).length; }).reduce((a, b) => a + b, 0)}))</script></body>"#;
    let probed = dir.join("probed.html");
    std::fs::write(&probed, page.replace("</body>", probe)).unwrap();
    let o = Command::new("timeout")
        .args(["120", browser, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars"])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .args(["--window-size=1400,900", "--virtual-time-budget=2000", "--dump-dom"])
        .arg(format!("file://{}", probed.display()))
        .stdin(Stdio::null())
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&o.stdout);
    let raw = dom.split("data-m=\"").nth(1).and_then(|r| r.split('"').next()).expect("the probe ran");
    let m: serde_json::Value = serde_json::from_str(&raw.replace("&quot;", "\"")).unwrap();
    assert_eq!(m["sw"], m["cw"], "the page scrolls sideways: {m}");
    assert_eq!(m["over"], 0, "a box scrolls sideways at 1400 px: {m}");
    assert_eq!(m["clipped"], 0, "chart labels cut off: {m}");
    // 47 themes: a page of a few screens, not 16,000 px.
    assert!(m["sh"].as_u64().unwrap() < 9000, "{m}");
    // The themes are listed at the top of their section, each linked.
    let toc = page.split("<nav class=\"toc").nth(1).unwrap().split("</nav>").next().unwrap();
    assert_eq!(toc.matches("<a href=\"#theme-").count(), gallery_names().len());
}
