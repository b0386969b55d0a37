#!/usr/bin/env python3
"""The page of `cqlrs serve` in a real browser (headless Chromium driven by selenium).

Starts `cqlrs serve` on a free port of 127.0.0.1 over the bundled lichess games, then, as
a user would: types `btm mate`, runs it and compares the number of listed games with
`cqlrs --count`; opens a game and steps with the arrow key to the matched position (the
mate); downloads the matches and compares the bytes with what `-o` writes; types a typo and
checks its line:column message and hint; runs the survey of a folder of scripts. Every wait
is bounded, the browser reaches 127.0.0.1 only, and the server is stopped at the end.

Usage: python3 tests/serve/browser.py --bin target/release/cqlrs [--screenshot FILE]
Needs: chromium and chromium-driver (Debian), selenium (pip). Run from .ci/run.
"""

import argparse
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

GAMES = "data/lichess-2016-05-first1500.pgn"
WAIT = 60  # seconds, the bound of every wait below

checks = {"passed": 0, "failed": 0}


def check(condition, what):
    """Count one check; a failed one is reported and ends the run."""
    if condition:
        checks["passed"] += 1
        print(f"ok: {what}")
        return
    checks["failed"] += 1
    print(f"FAILED: {what}", file=sys.stderr)
    raise SystemExit(1)


def start_server(binary, workdir):
    """Start `cqlrs serve` on a free port; returns the process and the URL it printed."""
    server = subprocess.Popen(
        [binary, "serve", "--port", "0", "--idle-exit", "300", "--survey", "examples/cql", GAMES],
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    selector = selectors.DefaultSelector()
    selector.register(server.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + WAIT
    line = b""
    while not line.endswith(b"\n") and time.monotonic() < deadline:
        if selector.select(timeout=1):
            chunk = os.read(server.stdout.fileno(), 1)
            if not chunk:
                break
            line += chunk
    text = line.decode().strip()
    if not text.startswith("cqlrs serve: http://127.0.0.1:"):
        server.kill()
        raise SystemExit(f"the server printed no URL: {text!r} {server.stderr.read().decode()}")
    return server, text.split(": ", 1)[1]


def browser(download_dir):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1500,980",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--disable-default-apps",
        # Only the server is reached: every other name resolves to nothing.
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    ]:
        options.add_argument(flag)
    options.add_experimental_option(
        "prefs", {"download.default_directory": download_dir, "download.prompt_for_download": False}
    )
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": download_dir})
    return driver


def type_query(driver, text):
    box = driver.find_element(By.ID, "query")
    box.clear()
    box.send_keys(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--screenshot", help="where to save the screenshot (default: a temporary file)")
    args = parser.parse_args()
    workdir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    binary = os.path.abspath(args.bin)
    tmp = tempfile.mkdtemp(prefix="cqlrs-serve-browser-")
    expected_pgn = os.path.join(tmp, "expected.pgn")
    counted = subprocess.run(
        [binary, "-i", GAMES, "-cql", "btm mate", "--count"], cwd=workdir, capture_output=True, text=True, timeout=WAIT
    )
    expected_count = int(counted.stdout.split()[0])
    subprocess.run(
        [binary, "-i", GAMES, "-cql", "btm mate", "-o", expected_pgn], cwd=workdir, capture_output=True, timeout=WAIT
    )
    downloads = os.path.join(tmp, "downloads")
    os.mkdir(downloads)

    server, url = start_server(binary, workdir)
    driver = None
    try:
        driver = browser(downloads)
        wait = WebDriverWait(driver, WAIT, poll_frequency=0.1)
        driver.get(url)
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
        for hook in ["query", "run", "stop", "errors", "results", "board", "moves"]:
            check(len(driver.find_elements(By.ID, hook)) == 1, f"the page has #{hook}")

        # Run `btm mate`: as many rows as `--count` gives.
        type_query(driver, "btm mate")
        started = time.monotonic()
        driver.find_element(By.ID, "run").click()
        wait.until(lambda d: d.find_element(By.ID, "progress").get_attribute("data-state") == "done")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#results [data-game]")) >= expected_count)
        elapsed = time.monotonic() - started
        rows = driver.find_elements(By.CSS_SELECTOR, "#results [data-game]")
        check(len(rows) == expected_count, f"{len(rows)} rows for `btm mate`, as --count gives ({expected_count})")
        print(f"run to the full list in the browser: {elapsed:.2f} s")

        # Open the second game and step with → to its matched position.
        rows[1].click()
        number = rows[1].get_attribute("data-game")
        wait.until(lambda d: d.find_element(By.ID, "viewer").get_attribute("data-game") == number)
        moves = driver.find_elements(By.CSS_SELECTOR, "#moves .move")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#moves .move.marked")) >= 1, "the matched position is marked")
        check(
            any("Game number" in c.text for c in driver.find_elements(By.CSS_SELECTOR, "#moves .comment")),
            "CQL's comments are shown",
        )
        driver.find_element(By.ID, "board").click()
        body = driver.find_element(By.TAG_NAME, "body")
        for _ in range(len(moves) + 1):
            if driver.find_elements(By.CSS_SELECTOR, "#moves .move.current.marked"):
                break
            body.send_keys(Keys.ARROW_RIGHT)
        current = driver.find_elements(By.CSS_SELECTOR, "#moves .move.current.marked")
        check(len(current) == 1, "→ steps to the matched position")
        check(current[0].text.endswith("#"), f"the matched move is the mate ({current[0].text})")
        fen = driver.find_element(By.ID, "fen").get_attribute("value")
        check(fen.split(" ")[1] == "b", f"black to move in the FEN shown ({fen})")
        check("marked" in driver.find_element(By.ID, "board").get_attribute("class"), "the board shows the match")
        pieces = driver.find_elements(By.CSS_SELECTOR, "#board .piece")
        check(len(pieces) == sum(c.isalpha() for c in fen.split(" ")[0]), "the board holds the FEN's pieces")
        body.send_keys(Keys.ARROW_LEFT)
        check(not driver.find_elements(By.CSS_SELECTOR, "#moves .move.current.marked"), "← steps back")
        body.send_keys(Keys.ARROW_RIGHT)
        shot = args.screenshot or os.path.join(tmp, "serve.png")
        driver.save_screenshot(shot)
        print(f"screenshot: {shot}")

        # Download: the bytes of `-o`.
        driver.find_element(By.ID, "download").click()
        target = os.path.join(downloads, "cqlrs-matches.pgn")
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline and not (
            os.path.exists(target) and not any(f.endswith(".crdownload") for f in os.listdir(downloads))
        ):
            time.sleep(0.1)
        with open(expected_pgn, "rb") as f:
            expected = f.read()
        got = open(target, "rb").read() if os.path.exists(target) else b""
        check(got == expected and len(expected) > 0, f"the download is byte-identical to -o ({len(got)} bytes)")

        # A typo: its line and column, and the hint.
        type_query(driver, "btm\n  mtae")
        driver.find_element(By.ID, "run").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#errors li"))
        error = driver.find_element(By.CSS_SELECTOR, "#errors li")
        check(error.text.startswith("2:3: unknown filter or variable `mtae`"), f"the typo's message: {error.text!r}")
        check("did you mean `mate`" in error.text, "the typo's hint")
        check(error.get_attribute("data-line") == "2", "the error names its line")
        check(
            "bad" in driver.find_element(By.CSS_SELECTOR, "#gutter div:nth-child(2)").get_attribute("class"),
            "the gutter marks the line",
        )
        check(len(driver.find_elements(By.CSS_SELECTOR, "#results [data-game]")) == expected_count, "the last list stays")

        # The survey report of a folder of scripts.
        driver.find_element(By.ID, "survey-run").click()
        wait.until(lambda d: d.find_element(By.ID, "survey-status").get_attribute("data-state") in ("done", "failed"))
        check(driver.find_element(By.ID, "survey-status").get_attribute("data-state") == "done", "the survey ran")
        frame = driver.find_element(By.ID, "survey-report")
        driver.switch_to.frame(frame)
        wait.until(lambda d: d.find_elements(By.ID, "theme-table"))
        check(len(driver.find_elements(By.CSS_SELECTOR, "#theme-table tbody tr")) > 10, "the survey report shows its themes")
        driver.switch_to.default_content()

        problems = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        check(not problems, f"no error in the browser's console: {problems}")
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"serve browser test: {checks['passed']} passed, {checks['failed']} failed")


if __name__ == "__main__":
    main()
