//! A fresh process of a benchmark binary, measuring some of its benchmarks for the tool: what
//! a confirmation ([`super::confirm`]) and a baseline's second process ([`super::save`]) start.
//!
//! The binary is started with the run's command line, `--perfbench-only=ID` for each benchmark
//! and `--perfbench-stream SOCKET`: it measures as a run does and sends its results over the
//! socket instead of starting a tool.

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::stream;
use crate::model::Benchmark;

/// How long the binary started again may take to connect (it selects, checks its counters and
/// starts measuring; it measures after that for as long as its benchmarks take).
const CONNECT_WAIT: Duration = Duration::from_secs(60);

/// Measures the benchmarks `ids` of the benchmark binary `exe` in a fresh process, with the
/// command line `line` (see the [module documentation](self)): their results as the
/// binary sends them, without estimates.
/// `Err` says why there are none (the binary could not be started, ended early, or sent
/// something else), with the end of what it wrote to standard error.
pub(super) fn measure(
    exe: &Path,
    line: &[OsString],
    ids: &[String],
) -> Result<Vec<Benchmark>, String> {
    let scratch = Scratch::new()?;
    let socket = scratch.dir.join("tool.sock");
    let listener = UnixListener::bind(&socket)
        .map_err(|e| format!("cannot listen on {}: {e}", socket.display()))?;
    let stderr_path = scratch.dir.join("stderr");
    let stderr = File::create(&stderr_path)
        .map_err(|e| format!("cannot create {}: {e}", stderr_path.display()))?;
    let child = Command::new(exe)
        .args(line)
        .args(ids.iter().map(|id| format!("--perfbench-only={id}")))
        .arg("--perfbench-stream")
        .arg(&socket)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let mut child = Killed(child);
    let said = |what: String| format!("{what}{}", tail(&stderr_path));
    let connection = accept(&listener, &mut child.0).map_err(said)?;
    let results = read_run(connection).map_err(said)?;
    match child.0.wait() {
        Ok(status) if status.success() => Ok(results),
        Ok(status) => Err(said(format!("it ended with {status}"))),
        Err(e) => Err(format!("cannot wait for it: {e}")),
    }
}

/// The connection of the binary started again, once it connects; `Err` when it ends or takes
/// longer than [`CONNECT_WAIT`] first.
fn accept(listener: &UnixListener, child: &mut Child) -> Result<UnixStream, String> {
    let started = Instant::now();
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot poll the socket: {e}"))?;
    loop {
        match listener.accept() {
            Ok((connection, _)) => {
                connection
                    .set_nonblocking(false)
                    .map_err(|e| format!("cannot read the connection: {e}"))?;
                return Ok(connection);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(format!("cannot accept its connection: {e}")),
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("it ended with {status} before measuring"));
        }
        if started.elapsed() > CONNECT_WAIT {
            return Err(format!(
                "it did not start measuring within {} s",
                CONNECT_WAIT.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The run the binary sends over `connection`: its first line, then each result (answered with
/// an empty frame: nothing to print) up to the end line. The connection is closed on return,
/// which ends the binary's wait for the tool's last frames.
fn read_run(connection: UnixStream) -> Result<Vec<Benchmark>, String> {
    let mut output = connection
        .try_clone()
        .map_err(|e| format!("cannot write to the connection: {e}"))?;
    let mut input = BufReader::new(connection);
    stream::read_hello(&mut input)?;
    let answer = |out: &mut UnixStream| {
        stream::send_frame(out, "").map_err(|e| format!("it stopped listening: {e}"))
    };
    answer(&mut output)?;
    let mut results = Vec::new();
    while let Some(b) = stream::read_benchmark(&mut input)? {
        results.push(b);
        answer(&mut output)?;
    }
    Ok(results)
}

/// The last lines of the file at `path` (what the binary wrote to standard error), as the end
/// of a message; empty when there are none.
fn tail(path: &Path) -> String {
    const KEPT: u64 = 2048;
    let mut text = String::new();
    if let Ok(mut f) = File::open(path) {
        let len = f.metadata().map_or(0, |m| m.len());
        let _ = f.seek(SeekFrom::Start(len.saturating_sub(KEPT)));
        let _ = f.read_to_string(&mut text);
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let last = &lines[lines.len().saturating_sub(6)..];
    format!(
        "; its last lines on standard error:\n    {}",
        last.join("\n    ")
    )
}

/// A child killed and reaped if it is still running when this is dropped (an error path).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// A directory of this process's own for the socket and the binary's standard error, removed
/// when dropped.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new() -> Result<Scratch, String> {
        // A short path: a Unix socket's path is limited to about a hundred bytes.
        let dir = std::env::temp_dir().join(format!("perfbench-confirm-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(Scratch { dir })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_that_does_not_serve_the_stream_is_an_error_with_its_words() {
        // `sh -c` stands in for a binary that ends without connecting.
        let line: Vec<OsString> = ["-c", "echo 'no such flag' >&2; exit 3", "sh"]
            .map(OsString::from)
            .to_vec();
        let e = measure(Path::new("/bin/sh"), &line, &["s/x".into()]).unwrap_err();
        assert!(e.contains("ended with exit status: 3"), "{e}");
        assert!(e.contains("no such flag"), "{e}");
        let e = measure(Path::new("/nonexistent/bench"), &line, &[]).unwrap_err();
        assert!(e.contains("cannot start /nonexistent/bench"), "{e}");
    }
}
