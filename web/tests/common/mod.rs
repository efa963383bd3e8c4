//! What the API tests share: a server on port 0 with a fresh SQLite file, and a client.
#![allow(dead_code)]

pub mod http;
pub mod pg;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use junqi_web::{Config, Server};
use serde_json::Value;

pub use http::Client;

/// A fresh database path under the system temp dir (removed on drop).
pub struct TempDb(pub PathBuf);

impl TempDb {
    pub fn new(name: &str) -> TempDb {
        static N: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "junqi-web-test-{}-{}-{name}.sqlite",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let db = TempDb(path);
        db.remove();
        db
    }

    fn remove(&self) {
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", self.0.display()));
        }
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Starts a server on loopback, port 0, random seats without delay.
pub async fn server(db: &TempDb) -> Server {
    junqi_web::start(Config {
        port: 0,
        db: db.0.display().to_string(),
        bot_delay: Duration::ZERO,
        ..Config::default()
    })
    .await
    .expect("server starts")
}

/// A created game: its id and the human seats' tokens.
pub struct Created {
    pub id: String,
    pub tokens: std::collections::BTreeMap<String, String>,
}

pub async fn create(c: &mut Client, body: &str) -> Created {
    let r = c.post("/api/games", None, body).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let j = r.json();
    let tokens = j["seats"]
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(k, v)| v["token"].as_str().map(|t| (k.clone(), t.to_owned())))
        .collect();
    Created {
        id: j["game"].as_str().unwrap().to_owned(),
        tokens,
    }
}

/// The state a token (or a spectator) sees; `svg` false leaves the picture out.
pub async fn state(c: &mut Client, id: &str, token: Option<&str>, svg: bool) -> Value {
    let path = if svg {
        format!("/api/games/{id}?svg=1")
    } else {
        format!("/api/games/{id}")
    };
    let r = c.get(&path, token).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

/// A small deterministic generator for the tests' choices.
pub struct Pick(u64);

impl Pick {
    pub fn new(seed: u64) -> Pick {
        Pick(seed | 1)
    }
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
