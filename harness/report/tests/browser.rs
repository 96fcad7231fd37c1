//! The site in a real browser: headless Chromium driven through chromedriver (WebDriver, the
//! fantoccini client) opens a report of `traces/samples/primitives.rrc.gz` from disk, checks
//! that every image on the index loads, that the filter narrows the event list, that j/k
//! select rows, clicks through to a draw page, checks its images and program frames, moves to
//! the next draw with `j`, and opens a report of a capture whose name is markup, checking
//! that no script of it runs. After each page the browser console must hold no error
//! (`goog:loggingPrefs`' browser log; a missing image added at the end must show there, so the
//! check is known to see errors). A screenshot of every page visited is kept in
//! `$CARGO_TARGET_TMPDIR/report-screens/`.
//!
//! Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs them): without them the
//! test says so loudly and passes, except under `CI=true`, where it fails.

use crate::support::cpu_report;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::wd::{Capabilities, WebDriverCompatibleCommand};
use fantoccini::{Client, ClientBuilder, Locator};
use rsxtrace_report::Loaded;
use serde_json::{json, Value};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Chromium's flags: headless, and no background connection (this network refuses them).
const CHROMIUM_ARGS: [&str; 11] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
    "--hide-scrollbars",
];

/// The first of `names` found on `PATH`.
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// chromedriver, stopped when dropped.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free local port")
        .port()
}

/// The browser console (`POST /session/{id}/se/log`, chromedriver's log endpoint).
#[derive(Debug)]
struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/se/log",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({"type": "browser"}).to_string()),
        )
    }
}

/// What the walk found wrong, if anything.
type Walk = Result<(), String>;

macro_rules! ensure {
    ($cond:expr, $($msg:tt)*) => {
        if !$cond {
            return Err(format!($($msg)*));
        }
    };
}

fn wd<T>(what: &str, r: Result<T, fantoccini::error::CmdError>) -> Result<T, String> {
    r.map_err(|e| format!("{what}: {e}"))
}

/// Console messages of level SEVERE since the last call.
async fn console_errors(client: &Client) -> Result<Vec<String>, String> {
    let log = wd(
        "reading the browser log",
        client.issue_cmd(BrowserLog).await,
    )?;
    let entries = log.as_array().cloned().unwrap_or_default();
    Ok(entries
        .iter()
        .filter(|e| e["level"] == "SEVERE")
        .map(|e| e["message"].as_str().unwrap_or_default().to_string())
        .collect())
}

/// Every image of the page, loaded (lazy ones made eager): `(src, natural width, height)`.
async fn images(client: &Client) -> Result<Vec<(String, u64, u64)>, String> {
    let script = r#"
        const done = arguments[arguments.length - 1];
        const imgs = Array.from(document.images);
        imgs.forEach(i => { i.loading = 'eager'; });
        Promise.all(imgs.map(i => i.decode().catch(() => null))).then(() =>
            done(imgs.map(i => [i.getAttribute('src'), i.naturalWidth, i.naturalHeight])));
    "#;
    let v = wd(
        "loading the images",
        client.execute_async(script, vec![]).await,
    )?;
    Ok(v.as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|i| {
            (
                i[0].as_str().unwrap_or_default().to_string(),
                i[1].as_u64().unwrap_or(0),
                i[2].as_u64().unwrap_or(0),
            )
        })
        .collect())
}

async fn all_images_load(client: &Client, page: &str) -> Walk {
    let found = images(client).await?;
    ensure!(!found.is_empty(), "{page}: no image");
    for (src, w, h) in &found {
        ensure!(*w > 0 && *h > 0, "{page}: {src} did not load ({w}x{h})");
    }
    Ok(())
}

async fn no_console_errors(client: &Client, page: &str) -> Walk {
    let errors = console_errors(client).await?;
    ensure!(errors.is_empty(), "{page}: console errors: {errors:?}");
    Ok(())
}

async fn screenshot(client: &Client, dir: &Path, name: &str) -> Walk {
    let png = wd("screenshot", client.screenshot().await)?;
    std::fs::write(dir.join(name), png).map_err(|e| format!("saving {name}: {e}"))
}

async fn press(client: &Client, key: char) -> Walk {
    let keys = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key });
    wd("pressing a key", client.perform_actions(keys).await)
}

async fn wait_for_url(client: &Client, ending: &str) -> Walk {
    let start = Instant::now();
    loop {
        let url = wd("reading the URL", client.current_url().await)?;
        if url.as_str().ends_with(ending) {
            return Ok(());
        }
        ensure!(
            start.elapsed() < Duration::from_secs(10),
            "still at {url}, expected a page ending {ending}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn js(client: &Client, script: &str) -> Result<Value, String> {
    wd("running a script", client.execute(script, vec![]).await)
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// The walk over the primitives report at `site` and the crafted one at `crafted`.
async fn walk(client: &Client, site: &Path, crafted: &Path, screens: &Path) -> Walk {
    // The index.
    wd(
        "opening the index",
        client.goto(&file_url(&site.join("index.html"))).await,
    )?;
    wd(
        "finding the events",
        client.wait().for_element(Locator::Id("events")).await,
    )?;
    all_images_load(client, "index").await?;
    no_console_errors(client, "index").await?;
    screenshot(client, screens, "index.png").await?;

    // The filter narrows the list to the rows holding every word.
    let count = r#"return Array.from(document.querySelectorAll('#events tbody tr'))
                   .filter(r => !r.hidden).map(r => r.textContent.toLowerCase());"#;
    let total = js(client, count).await?.as_array().map_or(0, Vec::len);
    ensure!(
        total > 14,
        "the index lists {total} events, fewer than the 14 draws"
    );
    let filter = wd(
        "finding the filter",
        client.find(Locator::Id("filter")).await,
    )?;
    wd("typing", filter.send_keys("polygon").await)?;
    let shown = js(client, count).await?;
    let shown: Vec<&str> = shown
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    ensure!(
        shown.len() == 5 && shown.iter().all(|t| t.contains("polygon")),
        "filtering 'polygon' shows {} rows of {total}: {shown:?}",
        shown.len()
    );
    screenshot(client, screens, "index-filtered.png").await?;

    // Escape leaves the box; j twice selects the second row shown, k goes back one.
    wd("leaving the filter", filter.send_keys("\u{e00c}").await)?;
    press(client, 'j').await?;
    press(client, 'j').await?;
    press(client, 'k').await?;
    let selected = js(
        client,
        "const s = document.querySelector('#events tr.selected'); return s ? s.textContent : null;",
    )
    .await?;
    ensure!(
        selected.as_str().is_some_and(|t| t.contains("draw 9")),
        "after j j k the selected row is {selected}, not the first polygon draw (draw 9)"
    );
    js(
        client,
        "const f = document.getElementById('filter'); f.value = ''; f.dispatchEvent(new Event('input')); return 0;",
    )
    .await?;

    // Click through to a draw page.
    let link = wd(
        "finding draw 4",
        client.find(Locator::LinkText("draw 4")).await,
    )?;
    wd("clicking draw 4", link.click().await)?;
    wait_for_url(client, "draws/draw-00004.html").await?;
    wd(
        "finding the target",
        client.wait().for_element(Locator::Id("target")).await,
    )?;
    all_images_load(client, "draw 4").await?;
    let frames = js(
        client,
        "return document.querySelectorAll('iframe.program').length;",
    )
    .await?;
    ensure!(
        frames == json!(2),
        "draw 4 shows {frames} program frames, not 2"
    );
    wd("entering the vertex program", client.enter_frame(0).await)?;
    let listing = js(client, "return document.body.textContent;").await?;
    wd("leaving the frame", client.enter_parent_frame().await)?;
    ensure!(
        listing
            .as_str()
            .is_some_and(|t| t.contains("Disassembly") && t.contains("DP4")),
        "the vertex program frame shows no disassembly: {listing}"
    );
    no_console_errors(client, "draw 4").await?;
    screenshot(client, screens, "draw-00004.png").await?;

    // j opens the next draw.
    press(client, 'j').await?;
    wait_for_url(client, "draws/draw-00005.html").await?;
    all_images_load(client, "draw 5").await?;
    no_console_errors(client, "draw 5").await?;
    screenshot(client, screens, "draw-00005.png").await?;

    // The crafted capture's name is text, not markup: one script (the site's), no alert.
    wd(
        "opening the crafted report",
        client.goto(&file_url(&crafted.join("index.html"))).await,
    )?;
    wd(
        "finding the events",
        client.wait().for_element(Locator::Id("events")).await,
    )?;
    let scripts = js(
        client,
        "return Array.from(document.scripts).map(s => s.getAttribute('src'));",
    )
    .await?;
    ensure!(
        scripts == json!(["assets/report.js"]),
        "the crafted report runs scripts {scripts}"
    );
    let heading = js(client, "return document.querySelector('h1').textContent;").await?;
    ensure!(
        heading
            .as_str()
            .is_some_and(|h| h.contains("<script>alert(1)</script>")),
        "the crafted name is not shown as text: {heading}"
    );
    ensure!(
        client.get_alert_text().await.is_err(),
        "the crafted report opened an alert"
    );
    no_console_errors(client, "crafted index").await?;
    screenshot(client, screens, "crafted-index.png").await?;

    // The console check sees errors: an image the site does not have is one.
    js(
        client,
        "const i = document.createElement('img'); i.src = 'images/none.png'; document.body.append(i); return 0;",
    )
    .await?;
    let start = Instant::now();
    while console_errors(client).await?.is_empty() {
        ensure!(
            start.elapsed() < Duration::from_secs(10),
            "a missing image left no console error: the console check sees nothing"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

/// A report of `sample` into `out`.
fn report(loaded: &Loaded, out: &Path) {
    cpu_report(loaded, out);
}

#[test]
fn the_site_works_in_headless_chromium() {
    let ci = rsxtrace_testkit::in_ci();
    let (Some(chromium), Some(chromedriver)) = (
        on_path(&["chromium", "chromium-browser", "google-chrome"]),
        on_path(&["chromedriver"]),
    ) else {
        assert!(
            !ci,
            "CHROMIUM MISSING in CI: install Debian's chromium and chromium-driver"
        );
        eprintln!(
            "CHROMIUM MISSING: no chromium or chromedriver on PATH (Debian: apt-get install \
             chromium chromium-driver); the browser test is skipped"
        );
        return;
    };
    let ws = rsxtrace_testkit::workspace!();
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-browser");
    let _ = std::fs::remove_dir_all(&out);
    let (site, crafted, screens) = (
        out.join("site"),
        out.join("crafted"),
        out.join("report-screens"),
    );
    std::fs::create_dir_all(&screens).expect("screens folder");
    report(
        &Loaded::open(&ws.sample("primitives.rrc.gz")).expect("open"),
        &site,
    );
    let mut loaded = Loaded::open(&ws.sample("basic.rrc.gz")).expect("open");
    loaded.overview.provenance.source_name = "<script>alert(1)</script>".into();
    report(&loaded, &crafted);

    let port = free_port();
    let _driver = Driver(
        Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver"),
    );
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "chromedriver did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let profile = tempfile::tempdir().expect("profile folder");
    let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|s| s.to_string()).collect();
    args.push(format!("--user-data-dir={}", profile.path().display()));
    let caps: Capabilities = serde_json::from_value(json!({
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": chromium, "args": args},
        "goog:loggingPrefs": {"browser": "ALL"},
    }))
    .expect("capabilities");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let outcome = runtime.block_on(async {
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .map_err(|e| format!("starting a Chromium session: {e}"))?;
        let walked = walk(&client, &site, &crafted, &screens).await;
        let closed = client.close().await;
        walked?;
        closed.map_err(|e| format!("closing the session: {e}"))
    });
    eprintln!("screenshots: {}", screens.display());
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
