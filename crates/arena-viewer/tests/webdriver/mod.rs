//! A WebDriver client in a few lines of HTTP: Debian's `chromium` driven through `chromedriver`
//! (package `chromium-driver`). Shared by the viewer's browser test and the `arena` command's
//! published-folder test (included there with `#[path]`).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

pub const RIGHT: &str = "\u{E014}";
pub const END: &str = "\u{E010}";
pub const HOME: &str = "\u{E011}";

pub fn find(env: &str, candidates: &[&str]) -> Option<PathBuf> {
    if let Ok(path) = std::env::var(env) {
        return Some(PathBuf::from(path));
    }
    candidates.iter().map(PathBuf::from).find(|p| p.is_file())
}

/// One HTTP/1.1 request with `Connection: close`; the body is read to the end (chunked or not).
fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
    let payload = body.map(Value::to_string).unwrap_or_default();
    let mut stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .map_err(|e| e.to_string())?;
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{payload}",
        payload.len()
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status).map_err(|e| e.to_string())?;
    let mut chunked = false;
    let mut length = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    // chromedriver keeps the connection open whatever the request says: read what the headers announce.
    let mut body = Vec::new();
    if let Some(length) = length {
        body.resize(length, 0);
        reader.read_exact(&mut body).map_err(|e| e.to_string())?;
    } else if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).map_err(|e| e.to_string())?;
            let size = usize::from_str_radix(size.trim(), 16).map_err(|e| e.to_string())?;
            if size == 0 {
                break;
            }
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).map_err(|e| e.to_string())?;
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        reader.read_to_end(&mut body).map_err(|e| e.to_string())?;
    }
    let value: Value = serde_json::from_slice(&body).map_err(|e| format!("{status}: {e}"))?;
    if !status.contains(" 200") {
        return Err(format!("{} {path}: {}", status.trim(), value));
    }
    Ok(value)
}

pub struct Driver {
    process: Child,
    addr: SocketAddr,
    session: String,
    _profile: tempfile::TempDir,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = http(
            self.addr,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl Driver {
    pub fn start(chromedriver: &Path, chromium: &Path) -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let mut process = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let started = Instant::now();
        while http(addr, "GET", "/status", None).is_err() {
            if started.elapsed() > Duration::from_secs(20) {
                // Not left running after the failed test.
                let _ = process.kill();
                let _ = process.wait();
                panic!("chromedriver did not start");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = tempfile::tempdir().expect("profile dir");
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1400,1000",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            },
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let session = match http(addr, "POST", "/session", Some(&capabilities)) {
            Ok(session) => session,
            Err(e) => {
                let _ = process.kill();
                let _ = process.wait();
                panic!("new browser session: {e}");
            }
        };
        let session = session["value"]["sessionId"]
            .as_str()
            .expect("session id")
            .to_string();
        Driver {
            process,
            addr,
            session,
            _profile: profile,
        }
    }

    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        http(self.addr, method, &path, body.as_ref())
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"))["value"]
            .take()
    }

    pub fn goto(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    pub fn eval(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    pub fn press(&self, key: &str) {
        self.call(
            "POST",
            "/actions",
            Some(
                json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
                {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]}),
            ),
        );
    }

    pub fn screenshot(&self, path: &Path) {
        let data = self.call("GET", "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD
            .decode(data.as_str().expect("base64"))
            .expect("png");
        std::fs::write(path, png).expect("write screenshot");
    }

    /// Console messages at level SEVERE since the last call (errors, failed loads).
    pub fn console_errors(&self) -> Vec<String> {
        let logs = self.call("POST", "/se/log", Some(json!({"type": "browser"})));
        logs.as_array()
            .into_iter()
            .flatten()
            .filter(|entry| entry["level"] == "SEVERE")
            .map(|entry| entry["message"].as_str().unwrap_or("?").to_string())
            .collect()
    }

    pub fn wait_for(&self, script: &str) {
        let started = Instant::now();
        while self.eval(script) != Value::Bool(true) {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "timed out waiting for {script}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The browser and its driver, or `None` with a note when they are missing (a failure under CI,
/// where `scripts/test` installs them).
pub fn browser() -> Option<(PathBuf, PathBuf)> {
    let chromedriver = find("ARENA_CHROMEDRIVER", &["/usr/bin/chromedriver"]);
    let chromium = find("ARENA_CHROMIUM", &["/usr/bin/chromium"]);
    match (chromedriver, chromium) {
        (Some(chromedriver), Some(chromium)) => Some((chromedriver, chromium)),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI needs chromium and chromedriver: apt-get install -y chromium chromium-driver"
            );
            eprintln!(
                "SKIPPED: no chromium/chromedriver (apt-get install -y chromium chromium-driver)"
            );
            None
        }
    }
}
