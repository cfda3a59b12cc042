//! The HTML report of a real run, loaded in a real browser (headless Chromium): the tables, the
//! group summaries, one SVG per plot, the hostile benchmark name shown as text, no console
//! message, and screenshots.
//!
//! The fixture suite (`tests/fixtures/html_fixture.rs`) runs twice in a scratch target
//! directory: once saving baseline `base`, then three times slower in `work` with `--baseline
//! base --sampling linear`, so the pages have regressions, overlaid baselines and regression
//! plots. The browser runs with no sandbox (CI runs as root), no GPU and its network pointed
//! nowhere; the pages' own Content-Security-Policy forbids every fetch and script, which a
//! control page checks is enforced and reported on the console.
//!
//! Where Valgrind is installed, the suite also runs once with `--simulate` (only `sum`), and
//! its page's flame graph, an image beside the page, is checked to load: a page of the test's
//! own frames it and reads each image's width (the report's pages allow no script).
//!
//! Chromium: `PERFBENCH_CHROMIUM`, else `chromium`, `chromium-browser` or `google-chrome` on
//! `PATH`. Without one the test prints why and passes, unless `PERFBENCH_REQUIRE_BROWSER` is
//! set (`.ci/run` sets it once Chromium is installed), when a missing browser fails it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use perfbench_analysis::model::{file, Report, Sampling};

const FIXTURE: &str = env!("CARGO_BIN_EXE_html-fixture");

fn browser() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PERFBENCH_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// Runs `cmd`, killing it after `limit`.
fn run_with_timeout(cmd: &mut Command, limit: Duration) -> Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the browser");
    let pid = child.id();
    let start = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    loop {
        if let Ok(out) = rx.try_recv() {
            return out.expect("wait for the browser");
        }
        if start.elapsed() > limit {
            // SAFETY: kill(2) on the child's pid; it has not been reaped (its waiter is still
            // waiting), so the pid cannot have been reused.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("the browser did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

struct Browser {
    exe: PathBuf,
    profile: PathBuf,
}

impl Browser {
    fn command(&self) -> Command {
        let mut c = Command::new(&self.exe);
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--disable-default-apps",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", self.profile.display()));
        c
    }

    /// The DOM Chromium built from `page`, and the console messages it logged.
    fn dom(&self, page: &Path) -> (String, Vec<String>) {
        self.dom_with(page, &[])
    }

    /// [`Browser::dom`] with more of Chromium's flags.
    fn dom_with(&self, page: &Path, flags: &[&str]) -> (String, Vec<String>) {
        let out = run_with_timeout(
            self.command()
                .args(flags)
                .arg("--dump-dom")
                .arg(format!("file://{}", page.display())),
            Duration::from_secs(120),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "chromium failed on {}:\n{stderr}",
            page.display()
        );
        let console = stderr
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_owned)
            .collect();
        (String::from_utf8_lossy(&out.stdout).into_owned(), console)
    }

    fn screenshot(&self, page: &Path, png: &Path, height: u32) {
        let out = run_with_timeout(
            self.command()
                .arg(format!("--screenshot={}", png.display()))
                .arg(format!("--window-size=1280,{height}"))
                .arg("--hide-scrollbars")
                .arg(format!("file://{}", page.display())),
            Duration::from_secs(120),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(png).expect("the screenshot");
        assert!(
            bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000,
            "{} is not a screenshot of a page",
            png.display()
        );
    }
}

fn fixture(target: &Path, args: &[&str], slow: bool) {
    let mut cmd = Command::new(FIXTURE);
    cmd.args(["--bench", "--quick"])
        .args(args)
        .env("CARGO_TARGET_DIR", target)
        .env("NO_COLOR", "1");
    if slow {
        cmd.env("HTML_FIXTURE_SLOW", "1");
    } else {
        cmd.env_remove("HTML_FIXTURE_SLOW");
    }
    let out = cmd.output().expect("run the fixture");
    assert!(
        out.status.success(),
        "the fixture failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("HTML report: "));
}

/// The plots a benchmark page draws for a counter: its distribution and its samples when it
/// has a finite value, and the regression with linear sampling.
fn expected_plots(report: &Report, id: &str) -> usize {
    let b = report.bench(id).unwrap();
    b.counters
        .iter()
        .map(|c| {
            let finite = c.per_iteration.iter().any(|v| v.is_finite());
            let linear = report.config.sampling == Sampling::Linear
                && c.estimate.as_ref().is_some_and(|e| e.slope.is_some());
            if finite {
                2 + usize::from(linear)
            } else {
                0
            }
        })
        .sum()
}

#[test]
fn a_real_runs_report_renders_in_a_real_browser() {
    let Some(exe) = browser() else {
        assert!(
            std::env::var_os("PERFBENCH_REQUIRE_BROWSER").is_none(),
            "PERFBENCH_REQUIRE_BROWSER is set but no Chromium was found"
        );
        eprintln!(
            "SKIPPED: no Chromium (set PERFBENCH_CHROMIUM or install `chromium`): the HTML \
             report was not checked in a browser"
        );
        return;
    };
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-browser");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let b = Browser {
        exe,
        profile: work.join("profile"),
    };
    let target = work.join("target");
    fixture(&target, &["--save-baseline", "base"], false);
    fixture(
        &target,
        &["--baseline", "base", "--sampling", "linear"],
        true,
    );
    let report = file::load(&target.join("perfbench/html-fixture.json")).unwrap();
    let pages = target.join("perfbench/report");

    // The control: a page that fetches and scripts is refused, and the console says so.
    let control = work.join("control.html");
    std::fs::write(
        &control,
        "<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" \
         content=\"default-src 'none'\"><img src=\"http://example.invalid/x.png\">",
    )
    .unwrap();
    let (_, console) = b.dom(&control);
    assert!(
        console
            .iter()
            .any(|l| l.contains("Content Security Policy")),
        "the console capture saw nothing on the control page: {console:?}"
    );

    // The index: the regression first, every benchmark, the hostile name as text.
    let index = pages.join("index.html");
    let (dom, console) = b.dom(&index);
    assert!(console.is_empty(), "console messages: {console:?}");
    let at = |s: &str| {
        dom.find(s)
            .unwrap_or_else(|| panic!("{s:?} not in the DOM:\n{dom}"))
    };
    assert!(at("<h3 class=\"regressed\">Regressed (") < at("<h3>All benchmarks</h3>"));
    assert!(dom.contains("<td>wall-time</td>"));
    for bench in &report.benchmarks {
        let text = bench
            .id
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        assert!(dom.contains(&format!(">{text}</a>")), "{text} not linked");
    }
    assert!(dom.contains("html-fixture/named/&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!dom.to_ascii_lowercase().contains("<script"));
    // The group summaries: every plot an SVG with its title, in the DOM as rendered. The
    // fixture's own group (work, named, sum) has the change of each benchmark, `named` over its
    // two names, and work and sum side by side; group `scaling` two functions over numeric
    // arguments, on logarithmic axes, each counter and the throughput.
    let groups = &dom[at("<h3>Groups</h3>")..at("<h3>All benchmarks</h3>")];
    let plots = groups.matches("<svg ").count();
    assert_eq!(plots, groups.matches("<title id=\"g-").count(), "{groups}");
    // The change (of the first counter at least), `named` over its names (a plot per counter
    // that counted something: wall-time at least), work and sum side by side; then scaling's
    // change, its wall-time and its throughput at least.
    assert!(plots >= 3 + 3, "{plots} plots: {groups}");
    assert!(groups.contains("<h4>Group <code>scaling</code> (8 benchmarks)</h4>"));
    assert!(groups.contains(
        "of the functions of group scaling against their argument (the arguments from 16 to \
         65536, both axes logarithmic): one line per function (by_iter, by_index)"
    ));
    assert!(groups.contains("throughput of the functions of group scaling"));
    assert!(groups
        .contains("(the arguments &lt;script&gt;alert(1)&lt;/script&gt;, plain &amp; simple)"));
    let headline = &report.benchmarks[0].counters[0].name;
    assert!(groups.contains(&format!(
        "The per-iteration {headline} values of the 2 functions of group html-fixture side by side"
    )));
    assert!(groups.contains(">+"), "the change of work in words");
    assert!(groups.contains(" regressed</text>"), "{groups}");
    let rows = dom.matches("<tr>").count() + dom.matches("<tr class=").count();
    let counters: usize = report.benchmarks.iter().map(|b| b.counters.len()).sum();
    assert!(rows > counters, "{rows} table rows for {counters} counters");

    // Every benchmark page: one SVG per plot, each with its title; no console message.
    let hostile = "html-fixture/named/<script>alert(1)</script>";
    for (i, bench) in report.benchmarks.iter().enumerate() {
        let page = pages
            .join("html-fixture")
            .join(perfbench_analysis::report::html::bench_file(i, &bench.id));
        let (dom, console) = b.dom(&page);
        assert!(console.is_empty(), "{}: {console:?}", page.display());
        let want = expected_plots(&report, &bench.id);
        assert!(want >= 2, "{}: nothing to plot", bench.id);
        assert_eq!(dom.matches("<svg ").count(), want, "{}", page.display());
        assert_eq!(dom.matches("<title id=").count(), want);
        assert!(dom.contains("overlaid with"), "{}: no baseline", bench.id);
        if bench.id == hostile {
            assert!(
                dom.contains("<h1>html-fixture/named/&lt;script&gt;alert(1)&lt;/script&gt;</h1>")
            );
            assert!(!dom.to_ascii_lowercase().contains("<script"));
        }
        if bench.id == "html-fixture/work" {
            assert!(dom.contains("regressed (p = "), "work did not regress");
        }
    }

    // Screenshots of the index and of a benchmark page, light and dark.
    let shots = work.join("screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    b.screenshot(&index, &shots.join("index.png"), 1100);
    b.screenshot(
        &pages.join("html-fixture/000-html-fixture_work.html"),
        &shots.join("work.png"),
        1600,
    );
    eprintln!("screenshots in {}", shots.display());

    simulated_flame_graphs_load(&b, &work);
}

fn valgrind_here() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A simulated run's benchmark page shows its flame graph as an image from its own place,
/// which its Content-Security-Policy lets through: loaded in the browser, each has a width.
/// The page forbids scripts, so a page of the test's own loads it in a frame and reads its
/// images (file pages are one origin with `--allow-file-access-from-files`).
fn simulated_flame_graphs_load(b: &Browser, work: &Path) {
    if !valgrind_here() {
        eprintln!("SKIPPED: no Valgrind: the flame graphs were not loaded in the browser");
        return;
    }
    let target = work.join("sim-target");
    fixture(&target, &["--simulate", "sum"], false);
    let suite = target.join("perfbench/report/html-fixture");
    let page = suite.join("000-html-fixture_sum.html");
    let (dom, console) = b.dom(&page);
    assert!(console.is_empty(), "console messages: {console:?}");
    let want = dom.matches("<img class=\"flame\" src=\"flame/").count();
    assert!(want >= 1, "no flame graph on the page:\n{dom}");
    let check = suite.join("flame-check.html");
    std::fs::write(
        &check,
        "<!DOCTYPE html><body><iframe id=\"f\" src=\"000-html-fixture_sum.html\"></iframe>\
         <script>document.getElementById('f').onload = function () {\
           var imgs = this.contentDocument.querySelectorAll('img.flame'), ok = 0;\
           for (var i = 0; i < imgs.length; i++) {\
             if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++;\
           }\
           document.body.setAttribute('data-flames', imgs.length + ' ' + ok);\
         };</script></body>",
    )
    .unwrap();
    let (dom, _) = b.dom_with(
        &check,
        &[
            "--allow-file-access-from-files",
            "--virtual-time-budget=10000",
        ],
    );
    assert!(
        dom.contains(&format!("data-flames=\"{want} {want}\"")),
        "the flame graphs did not all load ({want} on the page):\n{dom}"
    );
}
