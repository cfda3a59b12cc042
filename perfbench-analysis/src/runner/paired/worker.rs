//! One build's side of a paired run: the worker process ([`Worker`]), its requests and answers
//! with timeouts, what it last wrote to standard error, and its list of benchmarks.

use super::*;

/// One side of a paired run: a worker process and its pipes.
pub(super) struct Worker {
    /// `base`, `new` or `null`, for messages.
    pub(super) label: &'static str,
    pub(super) exe: PathBuf,
    pub(super) child: Child,
    pub(super) stdin: Option<ChildStdin>,
    pub(super) lines: Receiver<std::io::Result<String>>,
    /// The last lines the worker wrote to standard error.
    pub(super) stderr: Arc<Mutex<VecDeque<String>>>,
    /// Closed (disconnected) when the reader of standard error has read to its end.
    pub(super) stderr_read: Receiver<()>,
    pub(super) timeout: Duration,
}

/// How long a broken worker's message waits for the end of its standard error: a process the
/// worker started may hold the pipe open after the worker is gone.
pub(super) const STDERR_END_WAIT: Duration = Duration::from_secs(2);

/// Lines of a worker's standard error kept for messages.
pub(super) const STDERR_LINES: usize = 12;

impl Worker {
    /// Starts the build `exe` from its copy `run_from` (see [`Driver::spawn`]), telling it
    /// where the build itself lies (`PERFBENCH_WORKER_EXE`).
    pub(super) fn spawn(
        label: &'static str,
        exe: &Path,
        run_from: &Path,
        suite: &str,
        timeout: Duration,
    ) -> Result<Worker, String> {
        let mut child = Command::new(run_from)
            .args(["--bench", "--perfbench-worker", suite])
            .env(WORKER_EXE_VAR, exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the {label} build {}: {e}", exe.display()))?;
        let (tx, lines) = mpsc::channel();
        let stdout = child.stdout.take().expect("piped");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let end = line.is_err();
                if tx.send(line).is_err() || end {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr);
        let err = child.stderr.take().expect("piped");
        let (read_all, stderr_read) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            // Dropped at the end: the receiver sees the channel disconnect.
            let _read_all = read_all;
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == STDERR_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        Ok(Worker {
            label,
            exe: exe.to_owned(),
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            stderr_read,
            timeout,
        })
    }

    pub(super) fn name(&self) -> String {
        format!("the {} build ({})", self.label, self.exe.display())
    }

    /// A message for a worker that stopped answering: what happened, its exit status, and the
    /// end of its standard error. The worker is killed.
    pub(super) fn broken(&mut self, what: String) -> String {
        let _ = self.child.kill();
        let status = self.child.wait().ok();
        // The reader of standard error collects the last lines until the pipe's end.
        let _ = self.stderr_read.recv_timeout(STDERR_END_WAIT);
        let mut msg = format!("{}: {what}", self.name());
        if let Some(s) = status {
            if what.contains("exited") || what.contains("closed") {
                msg.push_str(&format!(" ({s})"));
            }
        }
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        if !tail.is_empty() {
            msg.push_str("; its last lines on standard error:");
            for l in tail.iter() {
                msg.push_str("\n    ");
                msg.push_str(l);
            }
        }
        msg
    }

    pub(super) fn send(&mut self, request: &Request) -> Result<(), String> {
        let mut line = request.encode();
        line.push('\n');
        let sent = match self.stdin.as_mut() {
            Some(s) => s.write_all(line.as_bytes()).and_then(|()| s.flush()),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        sent.map_err(|e| self.broken(format!("exited or closed its input ({e})")))
    }

    /// The next answer.
    pub(super) fn recv(&mut self, timeout: Duration) -> Result<Answer, String> {
        match self.lines.recv_timeout(timeout) {
            Ok(Ok(line)) => Answer::decode(&line).map_err(|e| {
                self.broken(format!(
                    "answered with something that is not the worker protocol: {} ({})",
                    line.chars().take(200).collect::<String>(),
                    e.problem
                ))
            }),
            Ok(Err(e)) => Err(self.broken(format!("cannot read its answer: {e}"))),
            Err(RecvTimeoutError::Disconnected) => {
                Err(self.broken("exited without answering".to_owned()))
            }
            Err(RecvTimeoutError::Timeout) => Err(self.broken(format!(
                "did not answer within {:.0} s (--worker-timeout); stopped it",
                timeout.as_secs_f64()
            ))),
        }
    }

    /// Sends `request` and reads the answer, waiting up to the timeout and `extra`.
    pub(super) fn request(&mut self, request: &Request, extra: Duration) -> Result<Answer, String> {
        self.send(request)?;
        self.recv(self.timeout + extra)
    }

    /// Reads the greeting and checks the protocol version; `fix` is the line that ends the
    /// message of a worker of another version ([`protocol_fix`]).
    pub(super) fn greet(&mut self, fix: &str) -> Result<(), String> {
        let hello = match self.lines.recv_timeout(self.timeout) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => return Err(self.broken(format!("cannot read its greeting: {e}"))),
            Err(RecvTimeoutError::Disconnected) => {
                return Err(self.broken(
                    "exited before greeting: is it a perfbench bench executable built with a \
                     perfbench that has paired runs?"
                        .to_owned(),
                ))
            }
            Err(RecvTimeoutError::Timeout) => {
                return Err(self.broken(format!(
                    "did not greet within {:.0} s (--worker-timeout)",
                    self.timeout.as_secs_f64()
                )))
            }
        };
        match wire::Hello::decode(&hello) {
            Ok(h) if h.version == PROTOCOL => Ok(()),
            Ok(h) => {
                let broken = self.broken(format!(
                    "speaks worker protocol {} (perfbench {}), this perfbench ({}) speaks \
                     {PROTOCOL}: build both sides with the same perfbench version",
                    h.version,
                    h.perfbench,
                    perfbench::protocol::PERFBENCH,
                ));
                Err(format!("{broken}\n{fix}"))
            }
            Err(_) => Err(self.broken(format!(
                "is not a perfbench worker (its first line: {})",
                hello.chars().take(200).collect::<String>()
            ))),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(format!("{}\n", Request::Quit.encode()).as_bytes());
        }
        // A worker that does not quit promptly is stopped.
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A side's answer that reports a failed or panicked benchmark.
pub(super) fn failure(answer: &Answer) -> Option<(Outcome, String)> {
    match answer {
        Answer::Error { outcome, error } => Some((
            if *outcome == Outcome::Panicked {
                Outcome::Panicked
            } else {
                Outcome::Failed
            },
            error.clone(),
        )),
        _ => None,
    }
}

/// A benchmark as a worker lists it, with its id split as the report wants it.
pub(super) struct ListedBench {
    pub(super) id: String,
    pub(super) group: String,
    pub(super) name: String,
    pub(super) params: Option<String>,
}

/// The benchmarks a worker lists, with their `ignore` marks.
pub(super) fn list(w: &mut Worker) -> Result<Vec<(ListedBench, bool)>, String> {
    let answer = w.request(&Request::List, Duration::ZERO)?;
    let Answer::Benchmarks(items) = answer else {
        return Err(w.broken(format!("answered `list` with {answer:?}")));
    };
    Ok(items
        .into_iter()
        .map(|b| {
            let listed = ListedBench {
                id: b.id,
                group: b.group,
                name: b.name,
                params: b.params,
            };
            (listed, b.ignore)
        })
        .collect())
}
